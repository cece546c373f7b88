package io.mpshare.mps;

/** A control command failed: what was sent and what the control client answered. {@link #reason()} says which kind of failure. */
public final class MpsException extends RuntimeException {
    /** Why a control command failed. */
    public enum Reason {
        /** "Cannot find MPS control daemon process": nothing answers on the pipe directory. */
        DAEMON_DOWN,
        /** "Unknown command ...": the daemon does not speak this command (older or newer driver). */
        UNKNOWN_COMMAND,
        /** "Server N not found": the MPS server exited (or never existed). */
        SERVER_NOT_FOUND,
        /** The command was accepted, but reading the setting back shows another value. */
        NOT_APPLIED,
        /** The control client did not finish within its timeout and was killed. */
        TIMEOUT,
        /** The control client could not be started (binary missing, not executable). */
        CANNOT_RUN,
        /** The answer was not in the expected form. */
        UNEXPECTED_REPLY,
        OTHER
    }

    private final Reason reason;

    public MpsException(String message) { this(Reason.OTHER, message); }

    public MpsException(String message, Throwable cause) { this(Reason.OTHER, message, cause); }

    public MpsException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public MpsException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() { return reason; }
}
