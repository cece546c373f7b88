package io.mpshare.e2e.k8s.junit;

import io.mpshare.e2e.k8s.Binaries;
import io.mpshare.e2e.k8s.Cluster;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;

import java.nio.file.Path;
import java.util.Map;

/**
 * JUnit extension that hands test classes one shared {@link Cluster}: started on first use, kept in the root
 * context's store (so every class of the run shares it; keep classes apart by namespace, node names and scheduler
 * names), closed when the run ends. Declare a {@code Cluster} parameter on a {@code @BeforeAll} or test method.
 * Missing binaries skip the test with a message naming {@code KUBEBUILDER_ASSETS}; with {@code CI=true} they fail it.
 */
public final class RealControlPlane implements ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RealControlPlane.class);

    @Override public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == Cluster.class;
    }

    @Override public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        Holder h = c.getRoot().getStore(NS).computeIfAbsent(Holder.class, k -> Holder.start(), Holder.class);
        if (h.failure != null) throw new IllegalStateException("the shared control plane did not start (see the first test's error): " + h.failure.getMessage(), h.failure);
        if (h.skip != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException("CI=true and " + h.skip);
            throw new TestAbortedException(h.skip);
        }
        return h.cluster;
    }

    /** The store's value: a cluster or the reason there is none. Closed by JUnit at the end of the run. */
    static final class Holder implements AutoCloseable {
        final Cluster cluster;
        final String skip;
        final RuntimeException failure;

        private Holder(Cluster cluster, String skip, RuntimeException failure) {
            this.cluster = cluster;
            this.skip = skip;
            this.failure = failure;
        }

        /** Started once per run; a failure is kept too, so later classes fail at once instead of starting it again. */
        static Holder start() {
            try {
                Path root = Cluster.findRepoRoot(Path.of(""));
                return switch (Binaries.locate(System.getenv(), root)) {
                    case Binaries.Missing m -> new Holder(null, "real control plane tier skipped: " + m.why(), null);
                    case Binaries.Found f -> new Holder(Cluster.start(f.binaries(), root, Path.of("target").toAbsolutePath(), Map.of()), null, null);
                };
            } catch (RuntimeException e) {
                return new Holder(null, null, e);
            }
        }

        @Override public void close() {
            if (cluster != null) cluster.close();
        }
    }
}
