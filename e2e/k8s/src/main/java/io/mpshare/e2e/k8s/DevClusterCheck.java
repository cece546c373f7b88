package io.mpshare.e2e.k8s;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code bin/dev-cluster up} checks before it builds anything: the options, and that the control-plane binaries
 * and etcd are there. JDK only, so the script runs it from source ({@code java .../DevClusterCheck.java}) on a fresh
 * clone. Prints nothing when all is well; otherwise one line, exit 2 for a wrong option, 1 for missing binaries.
 *
 * <pre>DevClusterCheck REPO_ROOT DIR [--nodes N] [--gpus G] [--api-port P] [--extender-port P]</pre>
 */
public final class DevClusterCheck {
    private DevClusterCheck() {}

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("dev-cluster: usage: DevClusterCheck REPO_ROOT " + DevClusterOptions.USAGE);
            System.exit(2);
        }
        try {
            DevClusterOptions.parse(List.of(args).subList(1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println("dev-cluster: " + e.getMessage());
            System.exit(2);
        }
        if (Binaries.locate(System.getenv(), Path.of(args[0])) instanceof Binaries.Missing m) {
            System.err.println("dev-cluster: " + m.why());
            System.exit(1);
        }
    }
}
