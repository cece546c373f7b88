package io.mpshare.core.validation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One container as the admission rules see it.
 *
 * @param init       an init container (including native sidecars)
 * @param limits     resource name to quantity text as written in {@code resources.limits}
 * @param requests   resource name to quantity text as written in {@code resources.requests}
 * @param privileged {@code securityContext.privileged} is true
 * @param envNames   names of the container's {@code env} entries
 * @param sidecar    an init container with {@code restartPolicy: Always}
 * @param ephemeral  an ephemeral container ({@code kubectl debug}), added through {@code pods/ephemeralcontainers}
 * @param security   its {@code securityContext}
 * @param mountPaths the {@code mountPath} of each of its {@code volumeMounts}, as written
 * @param envFrom    its {@code envFrom} sources (their keys cannot be seen at admission)
 */
public record ContainerView(String name, boolean init, Map<String, String> limits, Map<String, String> requests,
                            boolean privileged, List<String> envNames, boolean sidecar, boolean ephemeral, SecurityView security,
                            List<String> mountPaths, List<EnvSource> envFrom) {
    public ContainerView {
        Objects.requireNonNull(name, "name");
        limits = Map.copyOf(limits);
        requests = Map.copyOf(requests);
        envNames = List.copyOf(envNames);
        Objects.requireNonNull(security, "security");
        mountPaths = List.copyOf(mountPaths);
        envFrom = List.copyOf(envFrom);
    }

    public ContainerView(String name, boolean init, Map<String, String> limits, Map<String, String> requests,
                         boolean privileged, List<String> envNames, boolean sidecar, boolean ephemeral, SecurityView security,
                         List<String> mountPaths) {
        this(name, init, limits, requests, privileged, envNames, sidecar, ephemeral, security, mountPaths, List.of());
    }

    public ContainerView(String name, boolean init, Map<String, String> limits, Map<String, String> requests,
                         boolean privileged, List<String> envNames, boolean sidecar, boolean ephemeral, SecurityView security) {
        this(name, init, limits, requests, privileged, envNames, sidecar, ephemeral, security, List.of());
    }

    public ContainerView(String name, boolean init, Map<String, String> limits, Map<String, String> requests,
                         boolean privileged, List<String> envNames) {
        this(name, init, limits, requests, privileged, envNames, false, false, SecurityView.NONE);
    }

    /** The amount text for {@code resource}: the limit, else the request, else null. */
    public String amount(String resource) {
        String l = limits.get(resource);
        return l != null ? l : requests.get(resource);
    }

    /** "container main", "init container setup", "ephemeral container debugger-x". */
    public String describe() { return (ephemeral ? "ephemeral container " : init ? "init container " : "container ") + name; }
}
