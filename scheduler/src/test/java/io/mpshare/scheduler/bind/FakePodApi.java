package io.mpshare.scheduler.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodApi;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory API server for pods with the behaviour the binder relies on: resourceVersion moves on every
 * write, a Binding sets the node and merges its annotations into the pod in one write (as the API server's
 * binding subresource does), a second Binding or one with another UID answers 409. Failures can be injected.
 * Thread-safe; each pod's writes are serialised on its entry.
 */
public final class FakePodApi implements PodApi {
    private final ConcurrentHashMap<PodKey, Pod> pods = new ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong(1);
    public final AtomicInteger bindFailures = new AtomicInteger();   // the next N bindings answer 500
    final AtomicInteger bindCalls = new AtomicInteger();
    final AtomicInteger bindLandsThenTimesOut = new AtomicInteger(); // the next N bindings are written, then answer no response
    final AtomicInteger getFailures = new AtomicInteger();           // the next N reads answer 503
    volatile Runnable beforeBind = () -> {};

    public void put(Pod p) {
        Pod copy = new PodBuilder(p).editMetadata().withResourceVersion(Long.toString(version.incrementAndGet())).endMetadata().build();
        pods.put(key(copy), copy);
    }

    void remove(PodKey k) { pods.remove(k); }

    /** Changes the pod's resourceVersion as another writer would. */
    void touch(PodKey k) {
        pods.computeIfPresent(k, (kk, p) -> new PodBuilder(p).editMetadata().withResourceVersion(Long.toString(version.incrementAndGet())).endMetadata().build());
    }

    public Pod pod(PodKey k) { return pods.get(k); }

    public Map<PodKey, Pod> all() { return new HashMap<>(pods); }

    private static PodKey key(Pod p) { return PodKey.of(p.getMetadata().getNamespace(), p.getMetadata().getName()); }

    @Override public KubePod get(PodKey pod) throws Failure {
        if (getFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) throw new Failure(503, "read pod " + pod + ": API server answered 503 (injected)");
        Pod p = pods.get(pod); // stored pods are never changed in place: every write stores a new object
        return p == null ? null : KubePod.of(p);
    }

    @Override public void bind(PodKey pod, String uid, String node, Map<String, String> annotations) throws Failure {
        beforeBind.run();
        bindCalls.incrementAndGet();
        if (bindFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
            throw new Failure(500, "bind pod " + pod + " to node " + node + ": API server answered 500 (injected)");
        Failure[] err = new Failure[1];
        Pod after = pods.computeIfPresent(pod, (k, p) -> {
            if (!uid.isEmpty() && !uid.equals(p.getMetadata().getUid())) {
                err[0] = new Failure(409, "bind pod " + pod + ": UID precondition failed");
                return p;
            }
            if (p.getSpec().getNodeName() != null) {
                err[0] = new Failure(409, "bind pod " + pod + ": pod is already assigned to node " + p.getSpec().getNodeName());
                return p;
            }
            var ann = new LinkedHashMap<String, String>();
            if (p.getMetadata().getAnnotations() != null) ann.putAll(p.getMetadata().getAnnotations());
            ann.putAll(annotations);
            return new PodBuilder(p).editSpec().withNodeName(node).endSpec()
                    .editMetadata().withAnnotations(ann).withResourceVersion(Long.toString(version.incrementAndGet())).endMetadata().build();
        });
        if (after == null) throw new Failure(404, "bind pod " + pod + ": API server answered 404");
        if (err[0] != null) throw err[0];
        if (bindLandsThenTimesOut.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
            throw new Failure(0, "bind pod " + pod + " to node " + node + ": java.util.concurrent.TimeoutException (injected, after the Binding landed)");
    }
}
