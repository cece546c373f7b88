package io.mpshare.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** Every subcommand that talks to the API server shows --kubeconfig, --context and the resolution order in --help; the others do not. */
class KubeOptionsHelpTest {
    private static String help(String sub) {
        CommandLine cl = new CommandLine(new MpshareCommand()).getSubcommands().get(sub);
        assertThat(cl).as("subcommand " + sub).isNotNull();
        return cl.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", "");
    }

    @ParameterizedTest
    @ValueSource(strings = {"device-plugin", "scheduler-extender", "webhook", "inspect", "upgrade-node"})
    void help_apiCommand_showsKubeconfigContextAndOrder(String sub) {
        assertThat(help(sub)).contains("--kubeconfig=FILE", "--context=NAME",
                "--kubeconfig,else$KUBECONFIG", "else~/.kube/config,elsethepod'sserviceaccount", "docs/cli.md");
    }

    @ParameterizedTest
    @ValueSource(strings = {"simulate", "host", "run", "ps", "mps-control"})
    void help_localCommand_noKubeconfig(String sub) {
        assertThat(help(sub)).doesNotContain("--kubeconfig");
    }

    @org.junit.jupiter.api.Test void help_top_listsTheSharedExitCodes() {
        String help = new CommandLine(new MpshareCommand()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(help).contains("Exit codes (every subcommand; docs/cli.md):", "0   done", "2   usage");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--fake-gpus=MIB[,MIB...]", "--fake-gpu-model=NAME", "12036,16384,81559"})
    void help_devicePlugin_showsFakeGpus(String text) {
        assertThat(help("device-plugin")).contains(text);
    }
}
