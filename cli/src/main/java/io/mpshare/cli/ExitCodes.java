package io.mpshare.cli;

/**
 * The exit codes every subcommand shares (docs/cli.md). Codes above 2 are a subcommand's own and documented in its
 * {@code --help}: {@code upgrade-node} 3 and 4, {@code run} the command's own code, 125 and 127.
 */
public final class ExitCodes {
    /** Done; for a server, stopped by SIGTERM. */
    public static final int OK = 0;
    /** The arguments are well-formed, but what they point to cannot be used or reached: a missing kubeconfig, an
     *  unknown context, an API server, kubelet socket, NVML or MPS daemon that is not there, or an operation refused. */
    public static final int FAILED = 1;
    /** The command line is wrong: an unknown flag, a malformed or refused value (picocli's code for usage errors). */
    public static final int USAGE = 2;

    private ExitCodes() {}
}
