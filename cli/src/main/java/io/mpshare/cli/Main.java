package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.mps.preflight.AlreadyRunning;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;

/**
 * Entry point of {@code mpshare}: parses the subcommand and exits with its status. Expected failures
 * ({@link CliFailure}, a bad value reported as {@link IllegalArgumentException}, an API server that refuses) print one
 * line {@code mpshare <subcommand>: ...} on stderr and exit with the codes of {@link ExitCodes}; only bugs print a
 * stack trace.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        LogFormat.install();
        System.exit(run(args));
    }

    /** Runs mpshare with {@code args} and returns the exit code (2 for usage errors). */
    public static int run(String... args) {
        return commandLine(args).execute(commandArgs(args));
    }

    /** The command line that {@link #run} executes for {@code args}, so tests can set its out and err writers. */
    public static CommandLine commandLine(String... args) {
        CommandLine cl = routesToOpenb(args) ? new CommandLine(new SimulateOpenbCommand()) : new CommandLine(new MpshareCommand());
        return cl.setCaseInsensitiveEnumValuesAllowed(true)
                .setOverwrittenOptionsAllowed(true) // a flag given twice: the last wins, as for Kubernetes' own components (the chart's extraArgs come last)
                .setExecutionExceptionHandler(EXECUTION_FAILURES)
                .setParameterExceptionHandler(USAGE_ERRORS);
    }

    /** The arguments to pass to {@link #commandLine}'s command: without "simulate" when it routes to the openb replay. */
    public static String[] commandArgs(String... args) {
        return routesToOpenb(args) ? Arrays.copyOfRange(args, 1, args.length) : args;
    }

    private static boolean routesToOpenb(String... args) {
        return args.length > 0 && args[0].equals("simulate") && Arrays.stream(args).anyMatch(a -> a.startsWith("--trace-format"));
    }

    private static String name(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName();
    }

    private static final IExecutionExceptionHandler EXECUTION_FAILURES = (ex, cmd, parsed) -> {
        switch (ex) {
            case CliFailure f -> {
                cmd.getErr().println(name(cmd) + ": " + f.getMessage());
                return f.exitCode();
            }
            case IllegalArgumentException e when e.getMessage() != null -> {
                cmd.getErr().println(name(cmd) + ": " + e.getMessage());
                return ExitCodes.USAGE;
            }
            case UncheckedIOException e -> {
                cmd.getErr().println(name(cmd) + ": " + ioMessage(e.getMessage(), e.getCause()));
                return ExitCodes.FAILED;
            }
            case IOException e -> {
                cmd.getErr().println(name(cmd) + ": " + ioMessage(null, e));
                return ExitCodes.FAILED;
            }
            case AlreadyRunning e -> {
                cmd.getErr().println(name(cmd) + ": " + e.getMessage());
                return ExitCodes.FAILED;
            }
            case KubernetesClientException e -> {
                cmd.getErr().println(name(cmd) + ": the API server refused or failed: " + e.getMessage());
                return ExitCodes.FAILED;
            }
            default -> throw ex; // a bug: picocli prints the stack trace
        }
    };

    /** An I/O failure in words: what was being done, then each cause's message once ("... (No such file)"). */
    static String ioMessage(String what, Throwable cause) {
        StringBuilder sb = new StringBuilder(what == null ? "" : what);
        for (Throwable c = cause; c != null; c = c.getCause()) {
            String m = c instanceof NoSuchFileException n ? n.getFile() + ": no such file"
                    : c instanceof BindException ? "cannot listen: " + c.getMessage() + " (another process has the port? choose another)"
                    : c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
            if (sb.indexOf(m) >= 0) continue;
            sb.append(sb.isEmpty() ? m : ": " + m);
        }
        return sb.toString();
    }

    /** One line ({@link UsageErrors}): picocli's message, the nearest command or option, where to look; not the whole usage text. */
    private static final IParameterExceptionHandler USAGE_ERRORS = (ex, args) -> {
        ex.getCommandLine().getErr().println(UsageErrors.line(ex));
        return ExitCodes.USAGE;
    };
}
