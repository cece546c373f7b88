package io.mpshare.core.validation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Configuration of {@link PodValidator}.
 *
 * @param allowedNamespaces  namespaces whose pods that ask no shared GPU are not judged: they may set
 *                           {@code NVIDIA_VISIBLE_DEVICES}, use the runtime's other doors to GPUs and mount the
 *                           protected host folders (mpshare's own daemons, the GPU operator, node agents)
 * @param unit               unit of {@code aliyun.com/gpu-mem}
 * @param reserveMib         CUDA context reserve charged per container per GPU (a pod's
 *                           {@link Names#ANN_CONTEXT_RESERVE} overrides it)
 * @param acceptedSchedulers the {@code schedulerName}s whose scheduler calls mpshare's extender; a shared-GPU pod
 *                           for another is refused ({@code default-scheduler} stands for an unset one). Empty: not checked.
 * @param kubeletRootDirs    the kubelet's {@code --root-dir} on the cluster's nodes (device-plugin and pod-resources
 *                           sockets, every pod's volumes): a protected host folder beside {@link Names#RUN_DIR} and
 *                           {@code /proc}; absolute, normalised here
 */
public record AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib, Set<String> acceptedSchedulers,
                             List<String> kubeletRootDirs) {
    /** The host's process table: {@code /proc/<pid>/root} of a daemon reaches its files, sockets included. */
    static final String HOST_PROC = "/proc";

    public AdmissionRules {
        allowedNamespaces = Set.copyOf(allowedNamespaces);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        acceptedSchedulers = Set.copyOf(acceptedSchedulers);
        kubeletRootDirs = kubeletRootDirs(kubeletRootDirs);
    }

    /** The kubelet root folders normalised; a one-line {@link IllegalArgumentException} for none, or one that is not an absolute folder below /. */
    public static List<String> kubeletRootDirs(List<String> dirs) {
        if (dirs.isEmpty()) throw new IllegalArgumentException("give the kubelet's root folder, such as " + Names.KUBELET_DIR);
        for (String d : dirs)
            if (d == null || !d.startsWith("/") || TenancyRules.normalize(d).equals("/"))
                throw new IllegalArgumentException("kubelet root folder '" + d + "' is not an absolute folder below /: give the kubelet's"
                        + " --root-dir, such as " + Names.KUBELET_DIR);
        return dirs.stream().map(TenancyRules::normalize).distinct().toList();
    }

    public AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib, Set<String> acceptedSchedulers) {
        this(allowedNamespaces, unit, reserveMib, acceptedSchedulers, List.of(Names.KUBELET_DIR));
    }

    public AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib) {
        this(allowedNamespaces, unit, reserveMib, Set.of());
    }

    public static AdmissionRules defaults(Set<String> allowedNamespaces) {
        return new AdmissionRules(allowedNamespaces, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB);
    }

    /** The same rules, refusing shared-GPU pods whose scheduler is not one of {@code schedulers}. */
    public AdmissionRules withAcceptedSchedulers(Set<String> schedulers) {
        return new AdmissionRules(allowedNamespaces, unit, reserveMib, schedulers, kubeletRootDirs);
    }

    /** The same rules, protecting these kubelet root folders instead. */
    public AdmissionRules withKubeletRootDirs(List<String> dirs) {
        return new AdmissionRules(allowedNamespaces, unit, reserveMib, acceptedSchedulers, dirs);
    }

    /** Host folders no judged pod may mount, nor any folder above them: the MPS run folder, the kubelet's, the host's /proc. */
    public List<String> protectedHostPaths() {
        List<String> out = new ArrayList<>();
        out.add(Names.RUN_DIR);
        out.addAll(kubeletRootDirs);
        out.add(HOST_PROC);
        return List.copyOf(out);
    }
}
