package io.mpshare.e2e;

import io.mpshare.cli.CliFailure;
import io.mpshare.cli.ExitCodes;
import io.mpshare.cli.HostCommand;
import io.mpshare.cli.MpsControlCommand;
import io.mpshare.cli.PsCommand;
import io.mpshare.cli.RunCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;

/**
 * `mpshare host|mps-control|run|ps` on the GPU machine without the shaded jar (it would not fit a device call beside the
 * runtime): the cli's own command classes, compiled in by build-runtime.sh. Expected failures end as the launcher ends
 * them (one line, the exit code; cli's Main itself needs the Kubernetes client, which is not on this class path).
 */
@Command(name = "mpshare", subcommands = {HostCommand.class, MpsControlCommand.class, RunCommand.class, PsCommand.class})
public final class HostMain {
    public static void main(String[] args) {
        System.exit(new CommandLine(new HostMain()).setExecutionExceptionHandler((ex, cmd, parsed) -> {
            int code = switch (ex) {
                case CliFailure f -> f.exitCode();
                case IllegalArgumentException e when e.getMessage() != null -> ExitCodes.USAGE;
                case IOException e -> ExitCodes.FAILED;
                default -> throw ex;
            };
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
            return code;
        }).execute(args));
    }
}
