package io.mpshare.kube;

import io.mpshare.core.model.PodKey;

import java.util.Map;

/** The two API-server calls the extender's bind makes. Implementations are thread-safe. */
public interface PodApi {
    /** The pod as the API server has it now, or null when there is none. */
    KubePod get(PodKey pod) throws Failure;

    /**
     * POST pods/{name}/binding to {@code node} with {@code annotations} in the Binding's metadata: the API server sets
     * {@code spec.nodeName} and merges the annotations into the pod in one update. 409 when the pod is already bound
     * or (with a {@code uid}) is another pod of that name.
     */
    void bind(PodKey pod, String uid, String node, Map<String, String> annotations) throws Failure;

    /** An API call that did not succeed: the HTTP status (0 when no answer came) and what was said. */
    final class Failure extends Exception {
        private final int code;

        public Failure(int code, String message, Throwable cause) {
            super(message, cause);
            this.code = code;
        }

        public Failure(int code, String message) { this(code, message, null); }

        public int code() { return code; }

        public boolean conflict() { return code == 409; }

        public boolean notFound() { return code == 404; }
    }
}
