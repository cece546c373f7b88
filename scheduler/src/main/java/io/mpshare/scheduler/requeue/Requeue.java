package io.mpshare.scheduler.requeue;

import io.mpshare.core.ledger.RoomListener;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodApi;
import io.mpshare.kube.PodEvents;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.AskReader;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wakes the pending pods the extender refused for lack of room once room for them appears, whatever the order in
 * which kube-scheduler and the extender saw what freed it (docs/decisions/requeue-refused-pods.md).
 *
 * <p>kube-scheduler retries a pod it holds as unschedulable only on a cluster event. When the extender's view gains
 * room (a pod deleted or finished, a booking released, a GPU healthy again, a node added, a nomination's hold ended),
 * kube-scheduler has either seen no event at all, or seen one before the extender did and been refused again; then
 * the pod waits for the next unrelated event or kube-scheduler's 5-minute flush. So the extender writes
 * {@code requeue.mpshare.io/at} on each such pod that now fits: an update of a pending pod makes kube-scheduler v1.31
 * move it out of its unschedulable pool (at once, or after its backoff).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>One thread owns the decisions ({@link WakeBook}): the filter's refusals, the ledger's and the nominations'
 *     growths ({@link #roomGrew}, which runs inside the ledger and only numbers the growth and queues it), and the pod
 *     informer's bindings and deletions arrive as events in a queue. The fit check runs on that thread, off the HTTP
 *     workers.</li>
 * <li>A filter reads {@link #sequence} before it looks at the ledger and passes it with its refusal.</li>
 * <li>Deliveries (API PATCHes) run on virtual threads, at most {@link #MAX_IN_FLIGHT} at once; a pod that is gone
 *     or was recreated (404, 409, 422) is dropped, other failures are tried again.</li>
 * </ul>
 */
public final class Requeue implements Refusals, RoomListener, PodEvents, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Requeue.class.getName());
    static final int MAX_IN_FLIGHT = 8;

    /** Whether a pod fits a node now, as the filter would answer (the nomination hold included). */
    @FunctionalInterface
    public interface Fit {
        boolean fits(Ask.Gpu ask, String node);
    }

    /** Writes the requeue note on a pending pod (the API server's PATCH). */
    @FunctionalInterface
    public interface Deliver {
        void requeue(PodKey pod, String uid, String note) throws PodApi.Failure;
    }

    /** What a delivery came to, for the metrics. */
    @FunctionalInterface
    public interface Outcomes {
        void delivered(String outcome);

        Outcomes NONE = o -> { };
    }

    /**
     * @param perPod the least time between two wakes of one pod
     * @param rate   wakes per second for the whole cluster, on average ({@code burst} at once)
     */
    public record Limits(Duration perPod, double rate, int burst) {
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(1), 20, 50);

        public Limits {
            if (perPod.isNegative()) throw new IllegalArgumentException("per-pod spacing must be >= 0");
            if (rate <= 0 || burst < 1) throw new IllegalArgumentException("requeue rate must be > 0 and burst >= 1, got " + rate + " and " + burst);
        }
    }

    private final AtomicLong seq = new AtomicLong();
    private final LinkedBlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
    private final Set<PodKey> watched = ConcurrentHashMap.newKeySet();
    private final WakeBook book;
    private final Deliver deliver;
    private final Outcomes outcomes;
    private final InstantSource clock;
    private final ExecutorService senders = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("extender-requeue-", 0).factory());
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final Thread worker;
    private volatile boolean closed;

    public Requeue(Fit fit, Deliver deliver, Outcomes outcomes, Limits limits, InstantSource clock) {
        this.book = new WakeBook(fit, limits.perPod(), limits.rate(), limits.burst(), clock.instant());
        this.deliver = deliver;
        this.outcomes = outcomes;
        this.clock = clock;
        this.worker = Thread.ofPlatform().name("extender-requeue").daemon(true).unstarted(this::run);
    }

    public void start() { worker.start(); }

    /** The room sequence: a filter reads it before it looks at the ledger, and passes it with its refusal. */
    @Override public long sequence() { return seq.get(); }

    /** A filter kept {@code ask}'s pod on no node; {@code nodes} are those it refused (any reason), {@code seq} read before. */
    @Override public void refused(Ask.Gpu ask, Collection<String> nodes, long seq) {
        watched.add(ask.pod().key());
        events.offer(() -> book.refused(ask, nodes, seq));
    }

    /** A filter kept a node for the pod: it is not waiting. */
    @Override public void kept(PodKey pod) { if (watched.remove(pod)) events.offer(() -> book.forget(pod)); }

    @Override public void roomGrew(String node) {
        long s = seq.incrementAndGet();
        events.offer(() -> book.grew(node, s));
    }

    @Override public void upserted(KubePod p) { if (p.nodeName() != null || p.finished() || p.deleting()) kept(p.key()); }

    @Override public void deleted(KubePod p) { kept(p.key()); }

    /**
     * The extender starts, maybe after its own restart while kube-scheduler kept running: each pending pod of ours that
     * asks for a shared GPU is a waiter refused everywhere, and is woken now if it fits somewhere.
     *
     * @param nodes every node the ledger knows
     */
    public void sweep(Collection<KubePod> pending, Predicate<KubePod> ours, AskReader asks, Collection<String> nodes) {
        List<String> all = List.copyOf(nodes);
        for (KubePod p : pending) {
            if (!ours.test(p) || p.nodeName() != null) continue;
            if (asks.read(p.facts()) instanceof Ask.Gpu g) {
                watched.add(p.key());
                events.offer(() -> book.found(g, all));
            }
        }
    }

    /** Pods waiting for room now (the worker's count; for metrics and tests). */
    public int waiting() { return book.waiting(); }

    private void run() {
        while (!closed) {
            try {
                Instant now = clock.instant();
                Instant next = book.nextDue(now);
                long waitMs = next == null ? 1000 : Math.max(1, Duration.between(now, next).toMillis());
                Runnable e = events.poll(waitMs, TimeUnit.MILLISECONDS);
                while (e != null) {
                    e.run();
                    e = events.poll();
                }
                for (WakeBook.Wake w : book.due(clock.instant())) send(w);
            } catch (InterruptedException ie) {
                return;
            } catch (RuntimeException ex) {
                LOG.log(Level.SEVERE, "requeue worker: unexpected failure (the refused pods wait for kube-scheduler's own retry)", ex);
            }
        }
    }

    private void send(WakeBook.Wake w) throws InterruptedException {
        inFlight.acquire();
        senders.execute(() -> {
            try {
                deliver.requeue(w.pod(), w.uid(), clock.instant() + " " + w.reason());
                outcomes.delivered("requeued");
                LOG.log(Level.INFO, "requeue pod={0} reason={1}", new Object[] {w.pod(), w.reason()});
            } catch (PodApi.Failure f) {
                if (f.notFound() || f.conflict() || f.code() == 422) { // gone, or another pod of that name now
                    outcomes.delivered("gone");
                    events.offer(() -> book.forget(w.pod()));
                } else {
                    outcomes.delivered("failed");
                    LOG.log(Level.WARNING, "requeue pod={0}: {1} (tried again)", new Object[] {w.pod(), f.getMessage()});
                    events.offer(() -> book.failed(w));
                }
            } finally {
                inFlight.release();
            }
        });
    }

    @Override public void close() {
        closed = true;
        worker.interrupt();
        senders.shutdownNow();
    }
}
