package io.mpshare.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The top-level {@code mpshare} command. Each subcommand is a class of its own in this package that
 * wires its component by hand (constructor injection, no framework) and runs it.
 * To add one, write {@code XxxCommand} and list it below.
 */
@Command(name = "mpshare", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "GPU sharing with memory isolation through NVIDIA MPS.",
        exitCodeListHeading = "%nExit codes (every subcommand; docs/cli.md):%n",
        exitCodeList = {"0:done", "1:a file, the API server, kubelet, NVML or the MPS daemon cannot be used or reached",
                "2:usage: an unknown option or a refused value"},
        subcommands = {
                // subcommands: keep one per line, alphabetical
                DevicePluginCommand.class,
                HostCommand.class,
                InspectCommand.class,
                MpsControlCommand.class,
                PsCommand.class,
                RunCommand.class,
                SchedulerExtenderCommand.class,
                SimulateCommand.class,
                UpgradeNodeCommand.class,
                WebhookCommand.class,
        })
public final class MpshareCommand implements Runnable {
    @Spec CommandSpec spec;

    @Override public void run() {
        throw new ParameterException(spec.commandLine(), "Missing subcommand: try 'mpshare simulate', or 'mpshare --help' for all of them");
    }
}
