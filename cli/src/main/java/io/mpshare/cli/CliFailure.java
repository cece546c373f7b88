package io.mpshare.cli;

/**
 * An expected failure of a subcommand: a line that says what went wrong and what to change, and the exit code.
 * {@link Main} prints {@code mpshare <subcommand>: <message>} to stderr, no stack trace, and exits with {@link #exitCode()}.
 * Throw it for what a user can fix (a flag, a file, a server that is down); let bugs be ordinary exceptions.
 */
public final class CliFailure extends RuntimeException {
    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message, null, false, false);
        if (message == null || message.isBlank()) throw new IllegalArgumentException("a CliFailure needs a message");
        this.exitCode = exitCode;
    }

    /** A flag or argument is wrong ({@link ExitCodes#USAGE}). */
    public static CliFailure usage(String message) { return new CliFailure(ExitCodes.USAGE, message); }

    /** Something the flags point to cannot be used or reached ({@link ExitCodes#FAILED}). */
    public static CliFailure failed(String message) { return new CliFailure(ExitCodes.FAILED, message); }

    public int exitCode() { return exitCode; }
}
