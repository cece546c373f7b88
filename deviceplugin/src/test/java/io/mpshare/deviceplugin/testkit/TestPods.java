package io.mpshare.deviceplugin.testkit;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.kube.KubePod;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Pods as the extender leaves them at bind, e.g. {@code TestPods.pod("p").mem("main", 7).on("n1").placed(inv, 0).build()}:
 * spec.nodeName set and the allocation annotations written by {@link AllocationCodec}.
 */
public final class TestPods {
    private final String name;
    private String namespace = "default";
    private String node;
    private final List<Object[]> containers = new ArrayList<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private boolean hostIPC;
    private Long runAsUser;
    private Long containerRunAsUser;
    private String[] owner;
    private String uid = UUID.randomUUID().toString();
    private NodeInventory placedOn;
    private int[] gpus;
    private Instant assumedAt = Instant.parse("2026-11-30T00:00:00Z");
    private long reserve = Names.DEFAULT_CONTEXT_RESERVE_MIB;
    private MemoryUnit unit = MemoryUnit.GIB;

    private TestPods(String name) { this.name = name; }

    public static TestPods pod(String name) { return new TestPods(name); }

    public TestPods namespace(String ns) { namespace = ns; return this; }

    public TestPods uid(String u) { uid = u; return this; }

    public TestPods mem(String container, long units) { containers.add(new Object[]{container, false, units, 0}); return this; }

    public TestPods memCore(String container, long units, int core) { containers.add(new Object[]{container, false, units, core}); return this; }

    public TestPods initMem(String container, long units) { containers.add(new Object[]{container, true, units, 0}); return this; }

    public TestPods plain(String container) { containers.add(new Object[]{container, false, 0L, 0}); return this; }

    public TestPods on(String n) { node = n; return this; }

    public TestPods hostIPC() { hostIPC = true; return this; }

    /** Made by the controller {@code kind}/{@code name} (its {@code ownerReferences}, controller true). */
    public TestPods ownedBy(String kind, String ownerName) { owner = new String[]{kind, ownerName}; return this; }

    /** The pod-level {@code securityContext.runAsUser}: its GPU containers' effective client UID. */
    public TestPods runAsUser(long uid) { runAsUser = uid; return this; }

    /** The {@code securityContext.runAsUser} of every container: it wins over the pod's for that container. */
    public TestPods containerRunAsUser(long uid) { containerRunAsUser = uid; return this; }

    public TestPods gpuCount(int n) { labels.put(Names.LABEL_GPU_COUNT, Integer.toString(n)); return this; }

    public TestPods unit(MemoryUnit u) { unit = u; return this; }

    public TestPods reserve(long mib) { reserve = mib; return this; }

    public TestPods assumedAt(Instant t) { assumedAt = t; return this; }

    public TestPods annotation(String k, String v) { annotations.put(k, v); return this; }

    /** Writes the allocation the extender would: these GPU indices of {@code inv}. */
    public TestPods placed(NodeInventory inv, int... gpuIndices) { placedOn = inv; gpus = gpuIndices; return this; }

    /**
     * {@code p} as a tenant with {@code patch pods} would leave it after F2's reproduction of the hostile-tenant review:
     * {@code kubectl annotate --overwrite} of {@code mpshare.io/allocation} with the charge raised to {@code chargeMib}
     * and the app container {@code main}'s share with it; a newer resourceVersion.
     */
    public static Pod forged(Pod p, long chargeMib, long mainMib) {
        Pod out = new PodBuilder(p).build();
        var ann = new LinkedHashMap<>(out.getMetadata().getAnnotations());
        ann.put(Names.ANN_ALLOCATION, ann.get(Names.ANN_ALLOCATION).replaceAll("charge=\\d+/", "charge=" + chargeMib + "/")
                .replaceAll("c=main:\\d+:", "c=main:" + mainMib + ":"));
        out.getMetadata().setAnnotations(ann);
        String rv = p.getMetadata().getResourceVersion();
        out.getMetadata().setResourceVersion(Long.toString(rv == null ? 1 : Long.parseLong(rv) + 1));
        return out;
    }

    public Pod build() {
        var pb = new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid(uid).withLabels(labels).endMetadata()
                .withNewSpec().withNodeName(node).withHostIPC(hostIPC).endSpec()
                .withNewStatus().withPhase("Pending").endStatus();
        for (Object[] c : containers) {
            var cb = new ContainerBuilder().withName((String) c[0]).withImage("busybox");
            Map<String, Quantity> limits = new LinkedHashMap<>();
            if ((long) c[2] > 0) limits.put(Names.RESOURCE_GPU_MEM, new Quantity(Long.toString((long) c[2])));
            if ((int) c[3] > 0) limits.put(Names.RESOURCE_GPU_CORE, new Quantity(Integer.toString((int) c[3])));
            cb.withNewResources().withLimits(limits).endResources();
            if (containerRunAsUser != null) cb.withNewSecurityContext().withRunAsUser(containerRunAsUser).endSecurityContext();
            if ((boolean) c[1]) pb.editSpec().addToInitContainers(cb.build()).endSpec();
            else pb.editSpec().addToContainers(cb.build()).endSpec();
        }
        if (owner != null) pb.editMetadata().addNewOwnerReference().withApiVersion("batch/v1").withKind(owner[0]).withName(owner[1])
                .withUid(owner[1] + "-uid").withController(true).endOwnerReference().endMetadata();
        if (runAsUser != null) pb.editSpec().withNewSecurityContext().withRunAsUser(runAsUser).endSecurityContext().endSpec();
        Pod pod = pb.build();
        Map<String, String> ann = new LinkedHashMap<>(annotations);
        if (placedOn != null) {
            var info = KubePod.of(pod).facts().toPodInfoLenient(unit);
            var res = new DemandResolver(reserve).resolve(info);
            if (!(res instanceof DemandResolver.Resolution.Resolved r)) throw new IllegalArgumentException("test pod does not resolve: " + res);
            var idx = new ArrayList<Integer>();
            var uuids = new ArrayList<String>();
            for (int g : gpus) { idx.add(g); uuids.add(placedOn.gpu(g).uuid()); }
            var a = new Allocation(info.key(), uid, node, idx, uuids, r.demand(), assumedAt, Phase.BOUND);
            ann.putAll(AllocationCodec.encode(a, unit));
            ann.putAll(annotations);
        }
        pod.getMetadata().setAnnotations(ann);
        return pod;
    }
}
