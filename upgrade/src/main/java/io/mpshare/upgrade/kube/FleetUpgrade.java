package io.mpshare.upgrade.kube;

import io.mpshare.upgrade.kube.NodeUpgrader.Outcome;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/** {@code --all}: every node, at most {@code concurrency} at a time; one node's failure does not stop the others. */
public final class FleetUpgrade {
    private final NodeUpgrader upgrader;

    public FleetUpgrade(NodeUpgrader upgrader) { this.upgrader = upgrader; }

    /** Outcome per node, in the order given; a node that failed with an exception maps to null (its error printed). */
    public Map<String, Outcome> run(List<String> nodes, int concurrency, NodeUpgrader.Settings settings, Consumer<String> out)
            throws InterruptedException {
        if (concurrency < 1) throw new IllegalArgumentException("--concurrency must be at least 1");
        Consumer<String> synced = line -> { synchronized (out) { out.accept(line); } };
        var futures = new LinkedHashMap<String, Future<Outcome>>();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.min(concurrency, Math.max(1, nodes.size())))) {
            for (String n : nodes) futures.put(n, pool.submit(() -> upgrader.run(n, settings, synced)));
            var result = new LinkedHashMap<String, Outcome>();
            for (var e : futures.entrySet()) {
                try {
                    result.put(e.getKey(), e.getValue().get());
                } catch (ExecutionException ex) {
                    Throwable c = ex.getCause();
                    synced.accept(e.getKey() + ": failed: " + (c.getMessage() == null ? c.toString() : c.getMessage()));
                    result.put(e.getKey(), null);
                }
            }
            return result;
        }
    }
}
