package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** fabric8 {@link Pod} → core {@link PodInfo} and its decoded allocation. */
public final class PodConversion {
    private PodConversion() {}

    public static PodKey key(Pod pod) { return PodKey.of(pod.getMetadata().getNamespace(), pod.getMetadata().getName()); }

    public static Map<String, String> annotations(Pod pod) {
        var a = pod.getMetadata().getAnnotations();
        return a == null ? Map.of() : a;
    }

    public static PodInfo podInfo(Pod pod, MemoryUnit unit) {
        var cs = new ArrayList<ContainerRequest>();
        if (pod.getSpec() != null) {
            add(cs, pod.getSpec().getInitContainers(), true, unit);
            add(cs, pod.getSpec().getContainers(), false, unit);
        }
        int count = 1;
        var labels = pod.getMetadata().getLabels();
        if (labels != null && labels.get(Names.LABEL_GPU_COUNT) != null) {
            try { count = Integer.parseInt(labels.get(Names.LABEL_GPU_COUNT).trim()); } catch (NumberFormatException e) { count = 0; }
        }
        return new PodInfo(key(pod), pod.getMetadata().getUid(), cs, count, OptionalLong.empty());
    }

    private static void add(List<ContainerRequest> out, List<Container> cs, boolean init, MemoryUnit unit) {
        if (cs == null) return;
        for (Container c : cs) {
            long mem = amount(c, Names.RESOURCE_GPU_MEM);
            long core = amount(c, Names.RESOURCE_GPU_CORE);
            out.add(new ContainerRequest(c.getName(), init, unit.toMib(Math.max(0, mem)), (int) Math.clamp(core, 0, 100),
                    init && Names.RESTART_POLICY_ALWAYS.equals(c.getRestartPolicy())));
        }
    }

    private static long amount(Container c, String resource) {
        if (c.getResources() == null) return 0;
        Quantity q = get(c.getResources().getLimits(), resource);
        if (q == null) q = get(c.getResources().getRequests(), resource);
        if (q == null) return 0;
        BigDecimal v = Quantity.getAmountInBytes(q);
        return v.longValue();
    }

    private static Quantity get(Map<String, Quantity> m, String k) { return m == null ? null : m.get(k); }

    /** True when some container asks {@code aliyun.com/gpu-mem}. */
    public static boolean asksGpuMem(Pod pod) {
        for (var c : podInfo(pod, MemoryUnit.MIB).containers()) if (c.memMib() > 0) return true;
        return false;
    }

    public static AllocationCodec.Decoded decode(Pod pod, NodeInventory inv, MemoryUnit unit) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return AllocationCodec.decode(podInfo(pod, unit), annotations(pod), node, inv, node != null, unit);
    }
}
