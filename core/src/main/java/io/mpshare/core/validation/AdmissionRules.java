package io.mpshare.core.validation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;

import java.util.Objects;
import java.util.Set;

/**
 * Configuration of {@link PodValidator}.
 *
 * @param allowedNamespaces namespaces whose pods may set {@code NVIDIA_VISIBLE_DEVICES} without asking for a
 *                          shared GPU (mpshare's own daemons, the GPU operator)
 * @param unit              unit of {@code aliyun.com/gpu-mem}
 * @param reserveMib        CUDA context reserve charged per container per GPU
 */
public record AdmissionRules(Set<String> allowedNamespaces, MemoryUnit unit, long reserveMib) {
    public AdmissionRules {
        allowedNamespaces = Set.copyOf(allowedNamespaces);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
    }

    public static AdmissionRules defaults(Set<String> allowedNamespaces) {
        return new AdmissionRules(allowedNamespaces, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB);
    }
}
