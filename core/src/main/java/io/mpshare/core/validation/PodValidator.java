package io.mpshare.core.validation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.Quantities;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.validation.Violation.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The admission rules for pods. Pure: a pod view, the cluster's largest GPU and the namespace's
 * {@link Tenancy} in, violations out.
 *
 * <p>For a pod that asks for {@code aliyun.com/gpu-mem} or {@code aliyun.com/gpu-core.percentage} (a
 * shared-GPU pod): amounts are positive whole numbers, core at most 100, the {@code aliyun.com/gpu-count}
 * label a positive integer that divides every request in its unit, the per-GPU need fits the largest GPU, a
 * {@code mpshare.io/context-reserve-mib} annotation within its bounds, no preset {@code spec.nodeName} and a
 * scheduler that calls mpshare's extender, no container privileged, and no container sets
 * {@code NVIDIA_VISIBLE_DEVICES} or {@code CUDA_MPS_*} ({@code CUDA_VISIBLE_DEVICES} only picks among GPUs a
 * container already sees, so it stays allowed) nor takes an {@code envFrom} source whose prefix can spell an
 * {@link Names#ENV_GPU_FAMILIES} name; then the {@link TenancyRules} (user, escalation, capabilities, host namespaces
 * and paths). For every other pod outside the allow-listed namespaces: no {@code NVIDIA_VISIBLE_DEVICES} in env nor an
 * {@code envFrom} prefix that completes {@code NVIDIA_} names, and no host path that reaches the protected folders. In
 * both, outside the allow-list for the others: no {@code cdi.k8s.io/*} annotation and no mount in the NVIDIA
 * toolkit's device-list folder ({@link Rule#RUNTIME_DEVICES}). Ephemeral containers added later are judged by
 * {@link #validateEphemeral}.
 *
 * <p>Only what a pod says when it is created (and an ephemeral container when it is added) is judged here: every
 * field these rules read is immutable afterwards except the annotations, which the chart's ValidatingAdmissionPolicy
 * guards on every update (docs/decisions/tenant-annotations.md).
 */
public final class PodValidator {
    /** kube-apiserver's name for "no scheduler chosen": it defaults schedulerName before admission. */
    public static final String DEFAULT_SCHEDULER = "default-scheduler";

    private final AdmissionRules rules;
    private final DemandResolver resolver;

    public PodValidator(AdmissionRules rules) {
        this.rules = rules;
        this.resolver = new DemandResolver(rules.reserveMib(), rules.unit());
    }

    /** True when some container names a shared-GPU resource in its limits or requests. */
    public static boolean asksSharedGpu(PodView pod) {
        for (ContainerView c : pod.containers())
            if (c.amount(Names.RESOURCE_GPU_MEM) != null || c.amount(Names.RESOURCE_GPU_CORE) != null) return true;
        return false;
    }

    /** {@link #validate(PodView, OptionalLong, Tenancy)} for a {@link Tenancy#STRICT} namespace. */
    public List<Violation> validate(PodView pod, OptionalLong largestGpuMib) { return validate(pod, largestGpuMib, Tenancy.STRICT); }

    /**
     * Checks a pod being created; an empty list admits it.
     *
     * @param largestGpuMib the largest GPU's memory in the cluster, empty when not known (the size rule is then skipped)
     */
    public List<Violation> validate(PodView pod, OptionalLong largestGpuMib, Tenancy tenancy) {
        List<Violation> out = new ArrayList<>();
        if (!asksSharedGpu(pod)) {
            if (!rules.allowedNamespaces().contains(pod.namespace())) {
                checkNvidiaEnv(pod, out);
                runtimeDevices(pod, out);
                TenancyRules.hostPaths(pod, rules.protectedHostPaths(), " (a node agent that needs it belongs in a namespace the cluster admin"
                        + " adds to the webhook's allowed namespaces: chart value webhook.allowedNamespaces)", out);
            }
            return out;
        }
        int gpuCount = gpuCount(pod, out);
        OptionalLong reserve = contextReserve(pod, out);
        List<ContainerRequest> requests = new ArrayList<>();
        for (ContainerView c : pod.containers()) {
            if (c.ephemeral()) continue;
            long mem = amount(c, Names.RESOURCE_GPU_MEM, out);
            long core = amount(c, Names.RESOURCE_GPU_CORE, out);
            if (core > 100) out.add(new Violation(Rule.CORE_RANGE, c.name(), "container " + c.name() + " asks "
                    + Names.RESOURCE_GPU_CORE + ": " + core + ": a GPU has 100%, ask between 1 and 100"));
            divides(c, Names.RESOURCE_GPU_MEM, mem, gpuCount, out);
            divides(c, Names.RESOURCE_GPU_CORE, core, gpuCount, out);
            if (mem >= 0 && core >= 0 && core <= 100)
                requests.add(new ContainerRequest(c.name(), c.init(), rules.unit().toMib(mem), (int) core, c.sidecar()));
        }
        if (out.isEmpty()) checkDemand(pod, requests, gpuCount, reserve, largestGpuMib, out);
        checkPlacement(pod, out);
        runtimeDevices(pod, out);
        for (ContainerView c : pod.containers()) containerRules(pod, c, tenancy, out);
        TenancyRules.pod(pod, tenancy, rules.protectedHostPaths(), out);
        return out;
    }

    /**
     * Checks the ephemeral containers of a pod (an UPDATE of {@code pods/ephemeralcontainers}, e.g. {@code kubectl debug}):
     * in a shared-GPU pod the same user, privilege and env rules as its other containers; in any other pod outside the
     * allow-listed namespaces no {@code NVIDIA_VISIBLE_DEVICES} (the NVIDIA runtime would hand such a container every GPU).
     */
    public List<Violation> validateEphemeral(PodView pod, Tenancy tenancy) {
        List<Violation> out = new ArrayList<>();
        boolean shared = asksSharedGpu(pod);
        for (ContainerView c : pod.containers()) {
            if (!c.ephemeral()) continue;
            if (shared) {
                containerRules(pod, c, tenancy, out);
                deviceListMounts(c, out);
            } else if (!rules.allowedNamespaces().contains(pod.namespace())) {
                nvidiaEnv(pod, c, out);
                deviceListMounts(c, out);
            }
        }
        return out;
    }

    /** {@link #warnings(PodView, Tenancy)} for a trusted namespace. */
    public static List<String> warnings(PodView pod) { return warnings(pod, Tenancy.TRUSTED); }

    /**
     * Advice that does not block the pod. In a trusted namespace: root and each host namespace with its risk, and that
     * hostIPC is not needed (FACTS.md: MPS clients work in their own IPC namespace on driver 580; the seed's sample sets
     * it). In both: a non-root pod without a runAsUser, whose UID the extender cannot see.
     */
    public static List<String> warnings(PodView pod, Tenancy tenancy) {
        if (!asksSharedGpu(pod)) return List.of();
        List<String> out = new ArrayList<>();
        if (tenancy == Tenancy.TRUSTED) {
            TenancyRules.warnings(pod, out);
            if (pod.hostIPC())
                out.add("pod " + pod.describe() + ": hostIPC is not needed for shared GPUs under mpshare (MPS clients work in their own"
                        + " IPC namespace on driver 580 and later) and shares the node's System V IPC with every pod that has it;"
                        + " remove it unless the application itself needs the host's IPC");
        }
        for (ContainerView c : pod.containers()) {
            if (c.ephemeral() || c.security().runAsUser() != null || pod.security().runAsUser() != null || TenancyRules.rootReason(pod, c) != null) continue;
            out.add("pod " + pod.describe() + ": " + c.describe() + " runs as its image's non-root user, which mpshare cannot see: set"
                    + " securityContext.runAsUser so that pods of different UIDs are kept off one GPU (MPS serves one UID at a time)");
            break;
        }
        return out;
    }

    private void containerRules(PodView pod, ContainerView c, Tenancy tenancy, List<Violation> out) {
        if (c.privileged()) out.add(new Violation(Rule.PRIVILEGED, c.name(), c.describe()
                + " is privileged, so it would see every GPU of the node and escape its share: remove securityContext.privileged"));
        for (String env : c.envNames()) {
            if (env.equals(Names.ENV_VISIBLE_DEVICES) || env.startsWith(Names.ENV_MPS_PREFIX))
                out.add(new Violation(Rule.RESERVED_ENV, c.name(), c.describe() + " sets " + env
                        + ", which mpshare sets itself for shared-GPU pods: remove it from env (CUDA_VISIBLE_DEVICES may stay)"));
        }
        for (EnvSource src : c.envFrom())
            ReservedEnv.spellable(src.prefix(), Names.ENV_GPU_FAMILIES).ifPresent(family -> out.add(new Violation(Rule.RESERVED_ENV, c.name(),
                    c.describe() + " takes env from " + src.describe() + ", whose keys can set " + family + "* variables (" + spells(src, family)
                    + ") over the GPUs and MPS caps mpshare hands it (a container's own env wins over the device plugin's): name the keys"
                    + " it needs under env with valueFrom." + keyRef(src) + ", or give the source a prefix that begins none of "
                    + String.join(", ", Names.ENV_GPU_FAMILIES) + " (such as APP_)")));
        TenancyRules.container(pod, c, tenancy, out);
    }

    /** A preset node skips the extender's booking; another scheduler never calls it. */
    private void checkPlacement(PodView pod, List<Violation> out) {
        if (!pod.host().nodeName().isEmpty())
            out.add(new Violation(Rule.NODE_NAME, "", "spec.nodeName is set to " + pod.host().nodeName() + ", which skips mpshare's"
                    + " scheduler and its GPU booking: remove nodeName and pin the node with a nodeSelector on kubernetes.io/hostname instead"));
        String sched = pod.schedulerName().isEmpty() ? DEFAULT_SCHEDULER : pod.schedulerName();
        if (!rules.acceptedSchedulers().isEmpty() && !rules.acceptedSchedulers().contains(sched))
            out.add(new Violation(Rule.SCHEDULER, "", "schedulerName " + sched + " does not place shared GPUs through mpshare, so its GPU"
                    + " would not be booked: set schedulerName to " + String.join(" or ", new TreeSet<>(rules.acceptedSchedulers()))
                    + " or remove it"));
    }

    /** The pod's {@link Names#ANN_CONTEXT_RESERVE}, empty when absent or after adding a violation. */
    private OptionalLong contextReserve(PodView pod, List<Violation> out) {
        String text = pod.annotations().get(Names.ANN_CONTEXT_RESERVE);
        if (text == null) return OptionalLong.empty();
        try {
            long v = Long.parseLong(text.trim());
            if (v >= Names.MIN_CONTEXT_RESERVE_MIB && v <= Names.MAX_CONTEXT_RESERVE_MIB) return OptionalLong.of(v);
        } catch (NumberFormatException ignored) {
            // reported below
        }
        out.add(new Violation(Rule.CONTEXT_RESERVE, "", "annotation " + Names.ANN_CONTEXT_RESERVE + " is '" + text + "': give a whole"
                + " number of MiB from " + Names.MIN_CONTEXT_RESERVE_MIB + " to " + Names.MAX_CONTEXT_RESERVE_MIB
                + ", or remove it for the cluster's default of " + rules.reserveMib()));
        return OptionalLong.empty();
    }

    /**
     * The container runtime's other doors to GPUs, which bypass the scheduler, the device plugin and the MPS cap: a CDI
     * annotation on the pod (a CDI-enabled runtime may inject the devices it names) and a mount in the NVIDIA toolkit's
     * device-list folder (its volume-mounts strategy hands the container the GPUs the mounts are named after).
     */
    private static void runtimeDevices(PodView pod, List<Violation> out) {
        for (String key : new TreeSet<>(pod.annotations().keySet()))
            if (key.startsWith(Names.CDI_ANNOTATION_PREFIX))
                out.add(new Violation(Rule.RUNTIME_DEVICES, "", "pod " + pod.describe() + " has the annotation " + key
                        + ", which a CDI-enabled container runtime may read as a request for devices behind the scheduler's back:"
                        + " remove it and ask for " + Names.RESOURCE_GPU_MEM + " instead"));
        for (ContainerView c : pod.containers()) if (!c.ephemeral()) deviceListMounts(c, out);
    }

    private static void deviceListMounts(ContainerView c, List<Violation> out) {
        for (String path : c.mountPaths()) {
            String n = TenancyRules.normalize(path);   // at or under only: a mount above it (/run, /var) names no GPU
            if (n.equals(Names.NVIDIA_DEVICE_LIST_DIR) || n.startsWith(Names.NVIDIA_DEVICE_LIST_DIR + "/"))
                out.add(new Violation(Rule.RUNTIME_DEVICES, c.name(), c.describe() + " mounts a volume at " + path
                        + ", where the NVIDIA container toolkit reads the GPUs a container gets: remove the mount and ask for "
                        + Names.RESOURCE_GPU_MEM + " instead"));
        }
    }

    private void checkNvidiaEnv(PodView pod, List<Violation> out) {
        for (ContainerView c : pod.containers()) nvidiaEnv(pod, c, out);
    }

    private static void nvidiaEnv(PodView pod, ContainerView c, List<Violation> out) {
        if (c.envNames().contains(Names.ENV_VISIBLE_DEVICES))
            out.add(new Violation(Rule.NVIDIA_ENV, c.name(), c.describe() + " sets " + Names.ENV_VISIBLE_DEVICES
                    + ", which takes GPUs behind the scheduler's back: remove it and ask for " + Names.RESOURCE_GPU_MEM
                    + " instead (namespace " + pod.namespace() + " is not allowed to set it)"));
        // a source without a prefix is as unseen as the image's own env, and judged where that is (the policer); a prefix
        // written to complete NVIDIA_ names is not
        for (EnvSource src : c.envFrom())
            if (!src.prefix().isEmpty() && ReservedEnv.spellable(src.prefix(), List.of(Names.ENV_NVIDIA_PREFIX)).isPresent())
                out.add(new Violation(Rule.NVIDIA_ENV, c.name(), c.describe() + " takes env from " + src.describe() + ", which completes "
                        + Names.ENV_NVIDIA_PREFIX + "* names such as " + Names.ENV_VISIBLE_DEVICES + " (" + spells(src, Names.ENV_NVIDIA_PREFIX)
                        + ") and so takes GPUs behind the scheduler's back: use a prefix that does not begin " + Names.ENV_NVIDIA_PREFIX
                        + " and ask for " + Names.RESOURCE_GPU_MEM + " for GPUs (namespace " + pod.namespace() + " is not allowed to set it)"));
    }

    /** How a key completes the source's prefix into the family: "a key NVIDIA_VISIBLE_DEVICES", "prefix NV and a key IDIA_…". */
    private static String spells(EnvSource src, String family) {
        String example = Stream.of(Names.ENV_VISIBLE_DEVICES, Names.ENV_MPS_MEM_LIMIT, Names.ACK_GPU_MEM_IDX).filter(n -> n.startsWith(family))
                .findFirst().orElse(family + "X");
        if (src.prefix().isEmpty()) return "a key " + example;
        if (example.startsWith(src.prefix()) && example.length() > src.prefix().length())
            return "prefix " + src.prefix() + " and a key " + example.substring(src.prefix().length()) + " make " + example;
        return "every name it makes starts with " + family;
    }

    private static String keyRef(EnvSource src) { return src.kind().equals(EnvSource.SECRET) ? "secretKeyRef" : "configMapKeyRef"; }

    /** The whole amount of {@code resource}, 0 when absent, -1 after adding a violation. */
    private static long amount(ContainerView c, String resource, List<Violation> out) {
        String text = c.amount(resource);
        if (text == null) return 0;
        String t = text.trim();
        OptionalLong read = Quantities.whole(t);
        if (read.isEmpty()) {
            out.add(new Violation(Rule.AMOUNT, c.name(), "container " + c.name() + " asks " + resource + ": " + t
                    + ": write a whole number without fraction or suffix, such as 7"));
            return -1;
        }
        long v = read.getAsLong();
        if (v <= 0) {
            out.add(new Violation(Rule.AMOUNT, c.name(), "container " + c.name() + " asks " + resource + ": " + t
                    + ": ask for at least 1, or remove " + resource + " from its resources"));
            return -1;
        }
        return v;
    }

    private static void divides(ContainerView c, String resource, long amount, int gpuCount, List<Violation> out) {
        if (amount <= 0 || amount % gpuCount == 0) return;
        long down = amount / gpuCount * gpuCount, up = down + gpuCount;
        out.add(new Violation(Rule.GPU_COUNT, c.name(), "container " + c.name() + " asks " + resource + ": " + amount
                + ", which does not split evenly over the " + gpuCount + " GPUs of label " + Names.LABEL_GPU_COUNT
                + ": ask a multiple of " + gpuCount + (down > 0 ? " such as " + down + " or " + up : " such as " + up)));
    }

    private static int gpuCount(PodView pod, List<Violation> out) {
        String text = pod.labels().get(Names.LABEL_GPU_COUNT);
        if (text == null) return 1;
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= 1 && n <= Names.MAX_GPU_COUNT) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        out.add(new Violation(Rule.GPU_COUNT, "", "label " + Names.LABEL_GPU_COUNT + " is '" + text
                + "': give a whole number of GPUs from 1 to " + Names.MAX_GPU_COUNT + ", such as \"2\", or remove the label for one GPU"));
        return 1;
    }

    private void checkDemand(PodView pod, List<ContainerRequest> requests, int gpuCount, OptionalLong reserve, OptionalLong largest,
                             List<Violation> out) {
        PodInfo info = new PodInfo(PodKey.of(pod.namespace(), pod.name().isEmpty() ? "unnamed" : pod.name()), "", requests,
                gpuCount, OptionalLong.empty(), reserve);
        switch (resolver.resolve(info)) {
            case DemandResolver.Resolution.Invalid inv -> out.add(new Violation(Rule.DEMAND, "", inv.reason()));
            case DemandResolver.Resolution.Resolved r -> checkSize(r.demand(), largest, out);
            case DemandResolver.Resolution.NoGpu n -> { }
        }
    }

    private void checkSize(GpuDemand d, OptionalLong largest, List<Violation> out) {
        if (largest.isEmpty() || d.chargeMib() <= largest.getAsLong()) return;
        long reserves = d.chargeMib() - d.requestedMibPerGpu();
        out.add(new Violation(Rule.TOO_LARGE, "", "the pod needs " + show(d.chargeMib()) + " on each of its " + d.gpuCount()
                + " GPU(s) (" + show(d.requestedMibPerGpu()) + " asked + " + show(reserves) + " CUDA context reserve), but the largest GPU"
                + " in the cluster has " + show(largest.getAsLong()) + ": ask for less " + Names.RESOURCE_GPU_MEM
                + " or spread it over more GPUs with the label " + Names.LABEL_GPU_COUNT));
    }

    private String show(long mib) {
        if (rules.unit() == MemoryUnit.MIB || mib % 1024 == 0) return rules.unit() == MemoryUnit.MIB ? mib + " MiB" : (mib / 1024) + " GiB";
        return String.format(Locale.ROOT, "%.1f GiB", mib / 1024.0);
    }
}
