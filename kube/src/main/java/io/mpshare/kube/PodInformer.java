package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.mpshare.core.model.PodKey;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every pod of the cluster, from one informer (a LIST, then a WATCH), handed to {@link PodEvents} as
 * {@link KubePod}s: one {@code KubePod} per event, shared by every handler, so what one handler reads of it is
 * read once. Handlers run one after the other on the informer's thread, in the order added; one that throws is
 * logged and the others still see the event.
 */
public final class PodInformer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PodInformer.class.getName());
    private final SharedIndexInformer<Pod> informer;
    private final List<PodEvents> handlers = new CopyOnWriteArrayList<>();

    /** An informer over every namespace; nothing is read until {@link #start}. */
    public PodInformer(KubernetesClient client) {
        this.informer = client.pods().inAnyNamespace().runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override public void onAdd(Pod p) { tell(KubePod.of(p), PodEvents::upserted); }
            @Override public void onUpdate(Pod old, Pod p) { tell(KubePod.of(p), PodEvents::upserted); }
            @Override public void onDelete(Pod p, boolean unknownFinalState) { tell(KubePod.of(p), PodEvents::deleted); }
        });
    }

    /** Adds a handler (before {@link #start}, so that it sees the first list as adds); handlers are told in the order added. */
    public void add(PodEvents handler) { handlers.add(Objects.requireNonNull(handler, "handler")); }

    /** Starts the LIST and WATCH; completes when the first list has been delivered. */
    public CompletableFuture<Void> start() { return informer.start().toCompletableFuture(); }

    public boolean hasSynced() { return informer.hasSynced(); }

    /** The pods the informer holds now. */
    public List<KubePod> list() { return KubePod.all(informer.getStore().list()); }

    /** The informer's copy of {@code key}, or null. */
    public KubePod get(PodKey key) {
        Pod p = informer.getStore().getByKey(key.namespace() + "/" + key.name());
        return p == null ? null : KubePod.of(p);
    }

    public int size() { return informer.getStore().list().size(); }

    /** Tells every handler in turn; one handler's bug does not keep the event from the others (as fabric8 keeps its handlers apart). */
    private void tell(KubePod pod, BiConsumer<PodEvents, KubePod> event) {
        for (PodEvents h : handlers) {
            try {
                event.accept(h, pod);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "pod event handler " + h.getClass().getSimpleName() + " failed on " + pod, e);
            }
        }
    }

    @Override public void close() { informer.close(); }
}
