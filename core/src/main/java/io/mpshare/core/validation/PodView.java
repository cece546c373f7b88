package io.mpshare.core.validation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A pod as the admission rules see it: its place, labels, scheduler and containers (init first, in spec order,
 * then app containers, then ephemeral ones).
 *
 * @param schedulerName {@code spec.schedulerName}, empty when not set
 * @param hostIPC       {@code spec.hostIPC}
 * @param host          the pod's other host-facing fields
 * @param security      the pod-level {@code securityContext} (user fields)
 * @param annotations   the pod's annotations
 */
public record PodView(String namespace, String name, Map<String, String> labels, String schedulerName,
                      List<ContainerView> containers, boolean hostIPC, Host host, SecurityView security, Map<String, String> annotations) {
    public PodView {
        namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        name = name == null ? "" : name;
        labels = Map.copyOf(labels);
        schedulerName = schedulerName == null ? "" : schedulerName;
        containers = List.copyOf(Objects.requireNonNull(containers, "containers"));
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(security, "security");
        annotations = Map.copyOf(annotations);
    }

    public PodView(String namespace, String name, Map<String, String> labels, String schedulerName, List<ContainerView> containers, boolean hostIPC) {
        this(namespace, name, labels, schedulerName, containers, hostIPC, Host.NONE, SecurityView.NONE, Map.of());
    }

    public PodView(String namespace, String name, Map<String, String> labels, String schedulerName, List<ContainerView> containers) {
        this(namespace, name, labels, schedulerName, containers, false);
    }

    /**
     * @param nodeName  {@code spec.nodeName} as created, empty when the scheduler is to choose
     * @param hostPaths volume name to {@code hostPath.path}
     */
    public record Host(boolean hostPID, boolean hostNetwork, String nodeName, Map<String, String> hostPaths) {
        public static final Host NONE = new Host(false, false, "", Map.of());

        public Host {
            nodeName = nodeName == null ? "" : nodeName;
            hostPaths = Map.copyOf(hostPaths);
        }
    }

    /** "namespace/name", or "namespace/(generated name)" when the pod has no name yet. */
    public String describe() { return namespace + "/" + (name.isEmpty() ? "(generated name)" : name); }
}
