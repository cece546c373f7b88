package io.mpshare.core.validation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One container as the admission rules see it.
 *
 * @param limits     resource name to quantity text as written in {@code resources.limits}
 * @param requests   resource name to quantity text as written in {@code resources.requests}
 * @param privileged {@code securityContext.privileged} is true
 * @param envNames   names of the container's {@code env} entries (envFrom cannot be seen at admission)
 */
public record ContainerView(String name, boolean init, Map<String, String> limits, Map<String, String> requests,
                            boolean privileged, List<String> envNames) {
    public ContainerView {
        Objects.requireNonNull(name, "name");
        limits = Map.copyOf(limits);
        requests = Map.copyOf(requests);
        envNames = List.copyOf(envNames);
    }

    /** The amount text for {@code resource}: the limit, else the request, else null. */
    public String amount(String resource) {
        String l = limits.get(resource);
        return l != null ? l : requests.get(resource);
    }
}
