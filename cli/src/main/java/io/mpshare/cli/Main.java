package io.mpshare.cli;

import picocli.CommandLine;

/** Entry point of {@code mpshare}: parses the subcommand and exits with its status. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs mpshare with {@code args} and returns the exit code (2 for usage errors). */
    public static int run(String... args) {
        if (args.length > 0 && args[0].equals("simulate") && java.util.Arrays.stream(args).anyMatch(a -> a.startsWith("--trace-format")))
            return new CommandLine(new SimulateOpenbCommand()).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
        return new CommandLine(new MpshareCommand()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }
}
