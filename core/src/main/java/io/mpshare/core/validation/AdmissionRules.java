package io.mpshare.core.validation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;

import java.util.Objects;
import java.util.Set;

/**
 * Configuration of {@link PodValidator}.
 *
 * @param allowedNamespaces  namespaces whose pods may set {@code NVIDIA_VISIBLE_DEVICES} without asking for a
 *                           shared GPU (mpshare's own daemons, the GPU operator)
 * @param unit               unit of {@code aliyun.com/gpu-mem}
 * @param reserveMib         CUDA context reserve charged per container per GPU (a pod's
 *                           {@link Names#ANN_CONTEXT_RESERVE} overrides it)
 * @param acceptedSchedulers the {@code schedulerName}s whose scheduler calls mpshare's extender; a shared-GPU pod
 *                           for another is refused ({@code default-scheduler} stands for an unset one). Empty: not checked.
 */
public record AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib, Set<String> acceptedSchedulers) {
    public AdmissionRules {
        allowedNamespaces = Set.copyOf(allowedNamespaces);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        acceptedSchedulers = Set.copyOf(acceptedSchedulers);
    }

    public AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib) {
        this(allowedNamespaces, unit, reserveMib, Set.of());
    }

    public static AdmissionRules defaults(Set<String> allowedNamespaces) {
        return new AdmissionRules(allowedNamespaces, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB);
    }

    /** The same rules, refusing shared-GPU pods whose scheduler is not one of {@code schedulers}. */
    public AdmissionRules withAcceptedSchedulers(Set<String> schedulers) {
        return new AdmissionRules(allowedNamespaces, unit, reserveMib, schedulers);
    }
}
