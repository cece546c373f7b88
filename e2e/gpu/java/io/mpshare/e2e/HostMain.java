package io.mpshare.e2e;

import io.mpshare.cli.HostCommand;
import io.mpshare.cli.MpsControlCommand;
import io.mpshare.cli.PsCommand;
import io.mpshare.cli.RunCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * `mpshare host|mps-control|run|ps` on the GPU machine without the shaded jar (it would not fit a device call beside the
 * runtime): the cli's own command classes, compiled in by build-runtime.sh.
 */
@Command(name = "mpshare", subcommands = {HostCommand.class, MpsControlCommand.class, RunCommand.class, PsCommand.class})
public final class HostMain {
    public static void main(String[] args) {
        System.exit(new CommandLine(new HostMain()).execute(args));
    }
}
