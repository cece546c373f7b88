package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A v1.Pod as mpshare reads it: every question asked of a pod (its key, UID, node, phase, scheduler, priority,
 * nomination, labels and annotations, what it asks of shared GPUs and of the host, its booking) answered in one
 * place, in the core's terms. The rest of mpshare holds a {@code KubePod}, never the fabric8 object.
 *
 * <p>Implementation notes: a thin view over the fabric8 object it was made from, which nobody may change afterwards
 * (informer caches and API reads hand out objects that are not to be modified). {@link #facts} and
 * {@link #hostAsk} are computed on first use and kept (immutable values; a race computes the same value twice).
 */
public final class KubePod {
    private static final String SUCCEEDED = "Succeeded", FAILED = "Failed", RUNNING = "Running";

    /** One of {@code metadata.ownerReferences}: who created the pod. */
    public record Owner(String kind, String name) {}

    private final Pod pod;
    private final ObjectMeta meta;
    private PodFacts facts;
    private HostAsk hostAsk;

    private KubePod(Pod pod) {
        this.pod = pod;
        this.meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    }

    public static KubePod of(Pod pod) { return new KubePod(pod); }

    /** Every pod of {@code pods}, in order. */
    public static List<KubePod> all(List<Pod> pods) {
        List<KubePod> out = new ArrayList<>(pods.size());
        for (Pod p : pods) out.add(of(p));
        return out;
    }

    public PodKey key() {
        String ns = meta.getNamespace();
        return PodKey.of(ns == null ? "" : ns, meta.getName());
    }

    /** {@code metadata.uid}, empty when not set. */
    public String uid() { return orEmpty(meta.getUid()); }

    /** {@code metadata.resourceVersion}, or null. */
    public String resourceVersion() { return meta.getResourceVersion(); }

    /** {@code spec.nodeName}, or null while the pod is not bound. */
    public String nodeName() {
        String n = spec() == null ? null : spec().getNodeName();
        return n == null || n.isEmpty() ? null : n;
    }

    /** {@code status.phase}, or null when not reported yet. */
    public String phase() { return status() == null ? null : status().getPhase(); }

    /** Succeeded or Failed: its containers are gone and its GPUs are free. */
    public boolean finished() {
        String phase = phase();
        return SUCCEEDED.equals(phase) || FAILED.equals(phase);
    }

    /** Phase Running. */
    public boolean running() { return RUNNING.equals(phase()); }

    /** Being deleted ({@code metadata.deletionTimestamp} set): its containers may still run. */
    public boolean deleting() { return meta.getDeletionTimestamp() != null; }

    /** {@code spec.schedulerName}, empty when not set. */
    public String schedulerName() { return spec() == null ? "" : orEmpty(spec().getSchedulerName()); }

    /** {@code spec.priority}, 0 when not set (as in Kubernetes without a default PriorityClass). */
    public int priority() {
        Integer p = spec() == null ? null : spec().getPriority();
        return p == null ? 0 : p;
    }

    /** {@code status.nominatedNodeName}, or null. */
    public String nominatedNodeName() {
        String n = status() == null ? null : status().getNominatedNodeName();
        return n == null || n.isEmpty() ? null : n;
    }

    /** Its Ready condition is True. */
    public boolean ready() {
        if (status() == null || status().getConditions() == null) return false;
        for (PodCondition c : status().getConditions()) if ("Ready".equals(c.getType())) return "True".equals(c.getStatus());
        return false;
    }

    public Map<String, String> labels() { return meta.getLabels() == null ? Map.of() : meta.getLabels(); }

    public Map<String, String> annotations() { return meta.getAnnotations() == null ? Map.of() : meta.getAnnotations(); }

    public List<Owner> owners() {
        List<OwnerReference> refs = meta.getOwnerReferences();
        if (refs == null) return List.of();
        List<Owner> out = new ArrayList<>(refs.size());
        for (OwnerReference r : refs) out.add(new Owner(orEmpty(r.getKind()), orEmpty(r.getName())));
        return out;
    }

    /**
     * What made the pod, as {@code namespace/Kind/name}: its controller ({@code ownerReferences} entry with
     * {@code controller: true}, e.g. {@code team-a/Job/train}), else {@code namespace/Pod/name}. Pods a controller
     * replaces keep the same workload; a pod's author can name only owners in its own namespace.
     */
    public String workload() {
        List<OwnerReference> refs = meta.getOwnerReferences();
        if (refs != null) {
            for (OwnerReference r : refs)
                if (Boolean.TRUE.equals(r.getController()) && r.getKind() != null && r.getName() != null)
                    return key().namespace() + "/" + r.getKind() + "/" + r.getName();
        }
        return key().namespace() + "/Pod/" + key().name();
    }

    /** The images of its app containers, in spec order. */
    public List<String> images() {
        List<String> out = new ArrayList<>();
        if (spec() != null && spec().getContainers() != null) for (Container c : spec().getContainers()) out.add(c.getImage());
        return out;
    }

    /** What it asks of shared GPUs, as text (the same facts the extender's wire reader pulls from JSON). */
    public PodFacts facts() {
        PodFacts f = facts;
        if (f == null) facts = f = readFacts();
        return f;
    }

    /** Its effective host CPU and memory request, as kube-scheduler counts it. */
    public HostAsk hostAsk() {
        HostAsk h = hostAsk;
        if (h == null) hostAsk = h = HostAsk.of(pod);
        return h;
    }

    /** {@link PodFacts#toPodInfo}: validated, throws with a message that says what to change. */
    public PodInfo info(MemoryUnit unit) { return facts().toPodInfo(unit); }

    /** True when some container asks {@code aliyun.com/gpu-mem} (a whole number above 0). */
    public boolean asksGpuMem() {
        for (var c : facts().toPodInfoLenient(MemoryUnit.MIB).containers()) if (c.memMib() > 0) return true;
        return false;
    }

    /**
     * The booking its annotations carry (mpshare's, or ACK gpushare's on a bound pod), read with
     * {@link PodFacts#toPodInfoLenient}: a pod's own fields cannot make its booking unreadable.
     *
     * @param inventory its node's GPUs, to name ACK-placed pods' GPUs (may be null)
     */
    public AllocationCodec.Decoded booking(NodeInventory inventory, MemoryUnit unit) {
        String node = nodeName();
        return AllocationCodec.decode(facts().toPodInfoLenient(unit), annotations(), node, inventory, node != null, unit);
    }

    @Override public String toString() { return "pod " + key(); }

    private PodSpec spec() { return pod.getSpec(); }

    private PodStatus status() { return pod.getStatus(); }

    private PodFacts readFacts() {
        List<PodFacts.Container> cs = new ArrayList<>();
        Long podUser = null;
        if (spec() != null) {
            PodSecurityContext sc = spec().getSecurityContext();
            podUser = sc == null ? null : sc.getRunAsUser();
            add(cs, spec().getContainers(), false);
            add(cs, spec().getInitContainers(), true);
        }
        return new PodFacts(meta.getNamespace(), meta.getName(), meta.getUid(), labels().get(Names.LABEL_GPU_COUNT), podUser, cs,
                annotations().get(Names.ANN_CONTEXT_RESERVE));
    }

    private static void add(List<PodFacts.Container> out, List<Container> cs, boolean init) {
        if (cs == null) return;
        for (Container c : cs) {
            ResourceRequirements r = c.getResources();
            Map<String, Quantity> lim = r == null ? null : r.getLimits(), req = r == null ? null : r.getRequests();
            SecurityContext sc = c.getSecurityContext();
            out.add(new PodFacts.Container(orEmpty(c.getName()), init, text(lim, req, Names.RESOURCE_GPU_MEM),
                    text(lim, req, Names.RESOURCE_GPU_CORE), sc == null ? null : sc.getRunAsUser(),
                    init && Names.RESTART_POLICY_ALWAYS.equals(c.getRestartPolicy())));
        }
    }

    /** The amount as written ({@code limits}, else {@code requests}), or null. */
    private static String text(Map<String, Quantity> lim, Map<String, Quantity> req, String resource) {
        Quantity q = lim == null ? null : lim.get(resource);
        if (q == null && req != null) q = req.get(resource);
        if (q == null) return null;
        String f = q.getFormat();
        return q.getAmount() + (f == null ? "" : f);
    }

    private static String orEmpty(String s) { return s == null ? "" : s; }
}
