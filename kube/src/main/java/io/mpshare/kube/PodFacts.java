package io.mpshare.kube;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.Quantities;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The few fields of a v1.Pod that say what it asks of shared GPUs, as text, before validation. Both the
 * extender's streaming wire reader and {@link KubePod} (the informers' and API reads' fabric8 objects) produce
 * this, so there is one translation to {@link PodInfo}, with one parser for the amounts ({@link Quantities}).
 *
 * @param gpuCountLabel value of the {@code aliyun.com/gpu-count} label, or null
 * @param runAsUser     pod-level {@code securityContext.runAsUser}, or null
 * @param contextReserveText the {@code mpshare.io/context-reserve-mib} annotation, or null
 */
public record PodFacts(String namespace, String name, String uid, String gpuCountLabel, Long runAsUser,
                       List<Container> containers, String contextReserveText) {
    public PodFacts {
        containers = List.copyOf(containers);
    }

    public PodFacts(String namespace, String name, String uid, String gpuCountLabel, Long runAsUser, List<Container> containers) {
        this(namespace, name, uid, gpuCountLabel, runAsUser, containers, null);
    }

    /**
     * @param memText   {@code aliyun.com/gpu-mem} from limits (or requests when limits lack it), or null
     * @param coreText  {@code aliyun.com/gpu-core.percentage} likewise, or null
     * @param runAsUser container-level {@code securityContext.runAsUser}, or null
     * @param sidecar   an init container with {@code restartPolicy: Always} (runs beside the app containers)
     */
    public record Container(String name, boolean init, String memText, String coreText, Long runAsUser, boolean sidecar) {
        public Container(String name, boolean init, String memText, String coreText, Long runAsUser) {
            this(name, init, memText, coreText, runAsUser, false);
        }
    }

    /** True when some container names one of our resources (even with a bad value). */
    public boolean mentionsGpu() {
        for (Container c : containers) if (c.memText != null || c.coreText != null) return true;
        return false;
    }

    public PodKey key() {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("the pod has no metadata.name");
        return PodKey.of(namespace == null ? "" : namespace, name);
    }

    /**
     * Validates and converts; throws IllegalArgumentException (or ArithmeticException for amounts that
     * overflow) with a message that names the pod, the container and what to change.
     */
    public PodInfo toPodInfo(MemoryUnit unit) {
        PodKey key = key();
        int gpuCount = 1;
        if (gpuCountLabel != null) {
            long n = Quantities.parseWhole("pod " + key + " label " + Names.LABEL_GPU_COUNT, gpuCountLabel);
            if (n < 1 || n > 64)
                throw new IllegalArgumentException("pod " + key + " label " + Names.LABEL_GPU_COUNT + " is " + gpuCountLabel + ": use 1 to 64");
            gpuCount = (int) n;
        }
        List<ContainerRequest> out = new ArrayList<>(containers.size());
        Long uid = runAsUser;
        for (Container c : containers) {
            String where = "pod " + key + " container " + c.name;
            long mem = 0;
            int core = 0;
            if (c.memText != null) {
                long units = Quantities.parseWhole(where + " " + Names.RESOURCE_GPU_MEM, c.memText);
                try { mem = unit.toMib(units); }
                catch (ArithmeticException e) {
                    throw new IllegalArgumentException(where + " " + Names.RESOURCE_GPU_MEM + " is " + c.memText + " " + unit.symbol() + ": far more than any GPU has");
                }
            }
            if (c.coreText != null) {
                long v = Quantities.parseWhole(where + " " + Names.RESOURCE_GPU_CORE, c.coreText);
                if (v > 100) throw new IllegalArgumentException(where + " " + Names.RESOURCE_GPU_CORE + " is " + v + ": give 0 to 100");
                core = (int) v;
            }
            out.add(new ContainerRequest(c.name == null ? "" : c.name, c.init, mem, core, c.init && c.sidecar));
            if ((mem > 0 || core > 0) && c.runAsUser != null) uid = c.runAsUser;
        }
        OptionalLong reserve = contextReserveText == null ? OptionalLong.empty()
                : OptionalLong.of(Quantities.parseWhole("pod " + key + " annotation " + Names.ANN_CONTEXT_RESERVE, contextReserveText));
        return new PodInfo(key, this.uid, out, gpuCount, uid == null ? OptionalLong.empty() : OptionalLong.of(uid), reserve);
    }

    /**
     * The same without refusing anything, for a pod that is already placed or is only being looked at (its booking
     * is in its annotations; the pod itself only adds its key, UID, user and, for ACK-placed pods without a pod
     * total, its app containers' memory): an amount that is not a whole number counts 0, a core share is capped at
     * 100, an unreadable {@code gpu-count} label counts one GPU, and the context-reserve annotation is left out.
     */
    public PodInfo toPodInfoLenient(MemoryUnit unit) {
        PodKey key = key();
        long count = Quantities.whole(gpuCountLabel).orElse(1);
        List<ContainerRequest> out = new ArrayList<>(containers.size());
        Long uid = runAsUser;
        for (Container c : containers) {
            long mem = mib(Math.max(0, Quantities.whole(c.memText).orElse(0)), unit);
            int core = (int) Math.clamp(Quantities.whole(c.coreText).orElse(0), 0, 100);
            out.add(new ContainerRequest(c.name == null ? "" : c.name, c.init, mem, core, c.init && c.sidecar));
            if ((mem > 0 || core > 0) && c.runAsUser != null) uid = c.runAsUser;
        }
        return new PodInfo(key, this.uid, out, count < 1 || count > Names.MAX_GPU_COUNT ? 1 : (int) count,
                uid == null ? OptionalLong.empty() : OptionalLong.of(uid), OptionalLong.empty());
    }

    /** {@code units} in MiB, 0 when that is more than a long holds. */
    private static long mib(long units, MemoryUnit unit) {
        try {
            return unit.toMib(units);
        } catch (ArithmeticException e) {
            return 0;
        }
    }
}
