package io.mpshare.e2e.k8s.scale;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One stream of pods through the scheduler: created from {@code threads} threads, at once or at a fixed rate, each
 * timed from the moment its create returned (the pod exists; the scheduler's informer can see it) to the moment a
 * watch opened before the first create showed it bound. Pods per second: pods bound over the time from the first
 * create to the last bind.
 */
final class PodStream {
    private PodStream() {}

    /** What a stream measured; times in ms, {@code failedCreates} counts creates the API server refused. */
    record Result(String name, int pods, int bound, int failedCreates, double seconds, double perSecond, double p50, double p99, double max) {
        String row() {
            return String.format(Locale.ROOT, "| %s | %d | %d | %.1f | **%.1f** | %.0f | %.0f | %.0f |", name, pods, bound, seconds, perSecond, p50, p99, max);
        }
    }

    /**
     * Creates {@code pods} in {@code ns} and waits until all are bound or {@code timeout} passed since the last
     * bind. {@code rate} pods per second (0: as fast as the threads go).
     */
    static Result run(KubernetesClient c, String ns, String name, List<Pod> pods, int threads, double rate, Duration timeout) throws InterruptedException {
        int n = pods.size();
        Map<String, Integer> index = new ConcurrentHashMap<>();
        for (int i = 0; i < n; i++) index.put(pods.get(i).getMetadata().getName(), i);
        long[] created = new long[n], bound = new long[n];
        AtomicInteger boundCount = new AtomicInteger(), failed = new AtomicInteger();
        AtomicLong lastEvent = new AtomicLong(System.nanoTime());
        AtomicReference<WatcherException> closed = new AtomicReference<>();
        var watcher = new Watcher<Pod>() {
            @Override public void eventReceived(Action action, Pod p) {
                if (p.getSpec().getNodeName() == null) return;
                Integer i = index.get(p.getMetadata().getName());
                if (i == null) return;
                long now = System.nanoTime();
                synchronized (bound) {
                    if (bound[i] != 0) return;
                    bound[i] = now;
                }
                boundCount.incrementAndGet();
                lastEvent.set(now);
            }
            @Override public void onClose(WatcherException e) { closed.set(e); }
        };
        try (var watch = c.pods().inNamespace(ns).watch(watcher)) {
            long t0 = System.nanoTime();
            AtomicInteger next = new AtomicInteger();
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                for (int t = 0; t < threads; t++) pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < n; ) {
                        if (rate > 0) {
                            long due = t0 + (long) (i * 1e9 / rate);
                            for (long wait; (wait = due - System.nanoTime()) > 0; ) LockSupport.parkNanos(wait);
                        }
                        try {
                            c.resource(pods.get(i)).create();
                            created[i] = System.nanoTime();
                        } catch (RuntimeException e) {
                            failed.incrementAndGet();
                            System.err.println("create " + pods.get(i).getMetadata().getName() + ": " + e.getMessage());
                        }
                    }
                });
            }
            int expected = n - failed.get();
            lastEvent.set(Math.max(lastEvent.get(), System.nanoTime()));
            long lastList = System.nanoTime(), fiveSeconds = 5_000_000_000L;
            while (boundCount.get() < expected) {
                TimeUnit.MILLISECONDS.sleep(200);
                long now = System.nanoTime();
                if (now - lastEvent.get() > timeout.toNanos()) break; // no bind for that long: report what was bound
                if ((closed.get() != null || now - lastEvent.get() > fiveSeconds) && now - lastList > fiveSeconds) {
                    // a dropped watch, or a quiet spell: ask the API server
                    for (Pod p : c.pods().inNamespace(ns).list().getItems()) watcher.eventReceived(Watcher.Action.MODIFIED, p);
                    lastList = now;
                }
            }
            long last = 0;
            double[] ms = new double[boundCount.get()];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (bound[i] == 0 || created[i] == 0) continue;
                last = Math.max(last, bound[i]);
                if (k < ms.length) ms[k++] = Math.max(0, bound[i] - created[i]) / 1e6;
            }
            ms = Arrays.copyOf(ms, k);
            Arrays.sort(ms);
            double seconds = (last - t0) / 1e9;
            return new Result(name, n, boundCount.get(), failed.get(), seconds, k / seconds, pct(ms, 0.5), pct(ms, 0.99), k == 0 ? Double.NaN : ms[k - 1]);
        }
    }

    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
