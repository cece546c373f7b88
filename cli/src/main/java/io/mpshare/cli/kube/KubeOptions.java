package io.mpshare.cli.kube;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The picocli mixin of every subcommand that talks to the API server: {@code --kubeconfig} and {@code --context}.
 * The resolution order is written once, here and in docs/cli.md, and {@link KubeconfigResolver} implements it.
 */
public final class KubeOptions {
    /** Shown in each subcommand's {@code --help}. */
    static final String ORDER = "Which API server: --kubeconfig, else $KUBECONFIG (':'-separated files, merged as kubectl does), "
            + "else ~/.kube/config, else the pod's service account (in a cluster). Checked once at start (15 s); docs/cli.md.";

    @Option(names = "--kubeconfig", paramLabel = "FILE", order = 900,
            description = "kubeconfig file of the cluster. " + ORDER)
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", order = 901,
            description = "context of the kubeconfig to use (default: its current-context)")
    String context;

    public KubeOptions() {}

    /** For tests and callers that do not parse a command line. */
    public KubeOptions(Path kubeconfig, String context) {
        this.kubeconfig = kubeconfig;
        this.context = context;
    }

    public Path kubeconfig() { return kubeconfig; }

    public String context() { return context == null || context.isBlank() ? null : context; }
}
