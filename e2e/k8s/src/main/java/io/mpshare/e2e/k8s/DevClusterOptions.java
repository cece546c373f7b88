package io.mpshare.e2e.k8s;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code bin/dev-cluster up}'s options, validated. JDK only, like {@link Binaries}: {@link DevClusterCheck} runs them
 * from source before anything is built.
 */
record DevClusterOptions(Path dir, int nodes, int gpus, int apiPort, int extenderPort) {
    static final String USAGE = "DIR [--nodes N] [--gpus G] [--api-port P] [--extender-port P]";

    DevClusterOptions {
        if (nodes < 0 || nodes > 500) throw new IllegalArgumentException("--nodes must be 0..500, got " + nodes);
        if (gpus < 1 || gpus > 16) throw new IllegalArgumentException("--gpus must be 1..16, got " + gpus);
        for (int p : List.of(apiPort, extenderPort))
            if (p < 0 || p > 65535) throw new IllegalArgumentException("a port must be 0..65535 (0: a free one), got " + p);
    }

    static DevClusterOptions parse(List<String> args) {
        if (args.isEmpty()) throw new IllegalArgumentException("usage: DevCluster " + USAGE);
        Path dir = Path.of(args.getFirst());
        int nodes = 2, gpus = 8, api = 6443, ext = 0; // 0: a free port (39999 lies in Linux's ephemeral range)
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            if (!List.of("--nodes", "--gpus", "--api-port", "--extender-port").contains(a))
                throw new IllegalArgumentException("unknown option " + a + " (known: --nodes, --gpus, --api-port, --extender-port)");
            String v = i + 1 < args.size() ? args.get(++i) : null;
            if (v == null) throw new IllegalArgumentException(a + " needs a value");
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(a + " takes a number, got '" + v + "'");
            }
            switch (a) {
                case "--nodes" -> nodes = n;
                case "--gpus" -> gpus = n;
                case "--api-port" -> api = n;
                default -> ext = n;
            }
        }
        return new DevClusterOptions(dir, nodes, gpus, api, ext);
    }
}
