package io.mpshare.core.validation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
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

/**
 * The admission rules for pods (issue 7). Pure: a pod view and the cluster's largest GPU in, violations out.
 *
 * <p>For a pod that asks for {@code aliyun.com/gpu-mem} or {@code aliyun.com/gpu-core.percentage} (a
 * shared-GPU pod): amounts are positive whole numbers, core at most 100, the {@code aliyun.com/gpu-count}
 * label a positive integer that divides every request, the per-GPU need fits the largest GPU, no container
 * is privileged, and no container sets {@code NVIDIA_VISIBLE_DEVICES} or {@code CUDA_MPS_*}
 * ({@code CUDA_VISIBLE_DEVICES} only picks among GPUs a container already sees, so it stays allowed).
 * For every other pod outside the allow-listed namespaces: no {@code NVIDIA_VISIBLE_DEVICES} in env.
 */
public final class PodValidator {
    private final AdmissionRules rules;
    private final DemandResolver resolver;

    public PodValidator(AdmissionRules rules) {
        this.rules = rules;
        this.resolver = new DemandResolver(rules.reserveMib());
    }

    /** True when some container names a shared-GPU resource in its limits or requests. */
    public static boolean asksSharedGpu(PodView pod) {
        for (ContainerView c : pod.containers())
            if (c.amount(Names.RESOURCE_GPU_MEM) != null || c.amount(Names.RESOURCE_GPU_CORE) != null) return true;
        return false;
    }

    /**
     * Checks {@code pod}; an empty list admits it.
     *
     * @param largestGpuMib the largest GPU's memory in the cluster, empty when not known (the size rule is then skipped)
     */
    public List<Violation> validate(PodView pod, OptionalLong largestGpuMib) {
        List<Violation> out = new ArrayList<>();
        if (!asksSharedGpu(pod)) {
            if (!rules.allowedNamespaces().contains(pod.namespace())) checkNvidiaEnv(pod, out);
            return out;
        }
        int gpuCount = gpuCount(pod, out);
        List<ContainerRequest> requests = new ArrayList<>();
        for (ContainerView c : pod.containers()) {
            long mem = amount(c, Names.RESOURCE_GPU_MEM, out);
            long core = amount(c, Names.RESOURCE_GPU_CORE, out);
            if (core > 100) out.add(new Violation(Rule.CORE_RANGE, c.name(), "container " + c.name() + " asks "
                    + Names.RESOURCE_GPU_CORE + ": " + core + ": a GPU has 100%, ask between 1 and 100"));
            divides(c, Names.RESOURCE_GPU_MEM, mem, gpuCount, out);
            divides(c, Names.RESOURCE_GPU_CORE, core, gpuCount, out);
            if (mem >= 0 && core >= 0 && core <= 100)
                requests.add(new ContainerRequest(c.name(), c.init(), rules.unit().toMib(mem), (int) core));
        }
        if (out.isEmpty()) checkDemand(pod, requests, gpuCount, largestGpuMib, out);
        for (ContainerView c : pod.containers()) {
            if (c.privileged()) out.add(new Violation(Rule.PRIVILEGED, c.name(), "container " + c.name()
                    + " is privileged, so it would see every GPU of the node and escape its share: remove securityContext.privileged"));
            for (String env : c.envNames()) {
                if (env.equals(Names.ENV_VISIBLE_DEVICES) || env.startsWith(Names.ENV_MPS_PREFIX))
                    out.add(new Violation(Rule.RESERVED_ENV, c.name(), "container " + c.name() + " sets " + env
                            + ", which mpshare sets itself for shared-GPU pods: remove it from env (CUDA_VISIBLE_DEVICES may stay)"));
            }
        }
        return out;
    }

    /**
     * Advice that does not block the pod: for a shared-GPU pod with {@code hostIPC}, that mpshare does not need it
     * (FACTS.md: MPS clients work in their own IPC namespace on driver 580). The seed's sample sets it, so it is
     * a warning, never a denial.
     */
    public static List<String> warnings(PodView pod) {
        if (!pod.hostIPC() || !asksSharedGpu(pod)) return List.of();
        return List.of("pod " + pod.describe() + ": hostIPC is not needed for shared GPUs under mpshare (MPS clients work in their own"
                + " IPC namespace on driver 580 and later); remove it unless the application itself needs the host's IPC");
    }

    private void checkNvidiaEnv(PodView pod, List<Violation> out) {
        for (ContainerView c : pod.containers())
            if (c.envNames().contains(Names.ENV_VISIBLE_DEVICES))
                out.add(new Violation(Rule.NVIDIA_ENV, c.name(), "container " + c.name() + " sets " + Names.ENV_VISIBLE_DEVICES
                        + ", which takes GPUs behind the scheduler's back: remove it and ask for " + Names.RESOURCE_GPU_MEM
                        + " instead (namespace " + pod.namespace() + " is not allowed to set it)"));
    }

    /** The whole amount of {@code resource}, 0 when absent, -1 after adding a violation. */
    private static long amount(ContainerView c, String resource, List<Violation> out) {
        String text = c.amount(resource);
        if (text == null) return 0;
        String t = text.trim();
        long v;
        try {
            v = Long.parseLong(t);
        } catch (NumberFormatException e) {
            out.add(new Violation(Rule.AMOUNT, c.name(), "container " + c.name() + " asks " + resource + ": " + t
                    + ": write a whole number without fraction or suffix, such as 7"));
            return -1;
        }
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

    private void checkDemand(PodView pod, List<ContainerRequest> requests, int gpuCount, OptionalLong largest, List<Violation> out) {
        PodInfo info = new PodInfo(PodKey.of(pod.namespace(), pod.name().isEmpty() ? "unnamed" : pod.name()), "", requests,
                gpuCount, OptionalLong.empty());
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
