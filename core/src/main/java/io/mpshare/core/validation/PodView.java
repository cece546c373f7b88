package io.mpshare.core.validation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A pod as the admission rules see it: its place, labels, scheduler and containers (init first, in spec order).
 *
 * @param schedulerName {@code spec.schedulerName}, null or empty when not set
 * @param hostIPC       {@code spec.hostIPC}
 */
public record PodView(String namespace, String name, Map<String, String> labels, String schedulerName,
                      List<ContainerView> containers, boolean hostIPC) {
    public PodView {
        namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        name = name == null ? "" : name;
        labels = Map.copyOf(labels);
        schedulerName = schedulerName == null ? "" : schedulerName;
        containers = List.copyOf(Objects.requireNonNull(containers, "containers"));
    }

    public PodView(String namespace, String name, Map<String, String> labels, String schedulerName, List<ContainerView> containers) {
        this(namespace, name, labels, schedulerName, containers, false);
    }

    /** "namespace/name", or "namespace/(generated name)" when the pod has no name yet. */
    public String describe() { return namespace + "/" + (name.isEmpty() ? "(generated name)" : name); }
}
