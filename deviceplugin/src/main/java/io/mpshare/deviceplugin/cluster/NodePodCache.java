package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.node.NodeBookings;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every pod bound to this node, from one informer ({@code fieldSelector=spec.nodeName=<node>}): one LIST at start,
 * then a WATCH, handed to this node's {@link NodeBookings} (which reads and checks each pod once for every part of the
 * agent). Nothing on the Allocate path talks to the API server to read pods.
 *
 * <p>The bookings see each change on the informer thread; {@link #awaitChange} lets a caller
 * that found nothing wait for the next event (kubelet may call Allocate a moment before our watch delivers the
 * binding). The policer reuses this cache: {@link #pods()} and {@link #get} read the informer's store.
 */
public final class NodePodCache implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(NodePodCache.class.getName());

    private final KubernetesClient client;
    private final String node;
    private final boolean serverSideFilter;
    private final NodeBookings bookings;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile long version;
    private SharedIndexInformer<Pod> informer;
    private final Object readLock = new Object();
    private volatile long lastRead = System.nanoTime() - Long.MAX_VALUE / 2;

    /**
     * @param bookings         where every event of a pod bound to the node goes (its listeners added before {@link #start})
     * @param serverSideFilter false only for API test servers that cannot filter watches by {@code spec.nodeName}
     *                         (fabric8's mock server ignores that field): then every pod is watched and filtered here
     */
    public NodePodCache(KubernetesClient client, NodeBookings bookings, boolean serverSideFilter) {
        this.client = client;
        this.node = bookings.node();
        this.bookings = bookings;
        this.serverSideFilter = serverSideFilter;
    }

    public String node() { return node; }

    public NodePodCache start(Duration resync) {
        var pods = client.pods().inAnyNamespace();
        informer = (serverSideFilter ? pods.withField("spec.nodeName", node) : pods).inform(new ResourceEventHandler<>() {
            @Override public void onAdd(Pod pod) { fire(pod, false); }

            @Override public void onUpdate(Pod old, Pod pod) { fire(pod, false); }

            @Override public void onDelete(Pod pod, boolean unknownFinalState) { fire(pod, true); }
        }, resync.toMillis());
        return this;
    }

    private boolean here(Pod pod) { return pod.getSpec() != null && node.equals(pod.getSpec().getNodeName()); }

    private void fire(Pod pod, boolean deleted) {
        if (!here(pod)) return;
        try {
            if (deleted) bookings.deleted(pod); else bookings.upserted(pod);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading the booking of pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " failed", e);
        }
        lock.lock();
        try { version++; changed.signalAll(); } finally { lock.unlock(); }
    }

    /** A counter bumped after every event has reached the listeners. */
    public long version() { return version; }

    /** Waits until {@link #version()} moves past {@code seen} or {@code timeout} passes; true if it moved. */
    public boolean awaitChange(long seen, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (version == seen) {
                if (nanos <= 0) return false;
                nanos = changed.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Lists this node's pods from the API server directly (the informer may be a moment behind kubelet) and hands each
     * to the listeners, as an informer event would; waits at most {@code timeout}. Concurrent callers share one read.
     * Returns how many pods were read, or -1 when the read failed or took too long.
     */
    public int readThrough(Duration timeout) {
        long asked = System.nanoTime();
        synchronized (readLock) {
            if (lastRead - asked > 0) return 0;   // a read that started after we asked has just finished
            var f = new CompletableFuture<List<Pod>>();
            Thread.ofVirtual().name("mpshare-pod-read").start(() -> {
                try {
                    var all = client.pods().inAnyNamespace();
                    f.complete((serverSideFilter ? all.withField("spec.nodeName", node) : all).list().getItems());
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
            long started = System.nanoTime();
            try {
                List<Pod> read = f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                for (Pod p : read) fire(p, false);
                return read.size();
            } catch (TimeoutException e) {
                LOG.warning("reading the pods of node " + node + " directly took over " + timeout + "; going on without");
                return -1;
            } catch (ExecutionException e) {
                LOG.warning("reading the pods of node " + node + " directly failed: " + e.getCause().getMessage());
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            } finally {
                lastRead = started;
            }
        }
    }

    public List<Pod> pods() { return informer == null ? List.of() : informer.getStore().list().stream().filter(this::here).toList(); }

    public Optional<Pod> get(PodKey key) {
        return informer == null ? Optional.empty()
                : Optional.ofNullable(informer.getStore().getByKey(key.namespace() + "/" + key.name())).filter(this::here);
    }

    public boolean synced() { return informer != null && informer.hasSynced(); }

    @Override public void close() {
        if (informer != null) informer.close();
    }

    /** Blocks until the first LIST has been delivered (start-up). */
    public void awaitSynced(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!synced()) {
            if (System.nanoTime() > end) throw new IllegalStateException("pods of node " + node + " not listed within " + timeout);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
