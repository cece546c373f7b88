package io.mpshare.e2e.node;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Gives a scenario the one {@link RealNode} of this test JVM (one kubelet per machine), started at first use with
 * its control plane and closed when the run ends (JUnit's root store closes it). Skips (or, under CI, fails) with one
 * line when the tier cannot run here.
 */
final class NodeExtension implements ParameterResolver {
    /** The node and its cluster, or why they did not start (kept, so later classes fail at once instead of trying again). */
    private record Shared(RealNode node, AutoCloseable cluster, RuntimeException failure) implements AutoCloseable {
        @Override public void close() throws Exception {
            if (cluster == null) return;
            try (cluster) {
                node.close();
            }
        }
    }

    @Override public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == RealNode.class;
    }

    @Override public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        NodeTier tier = NodeTier.requireOrSkip();
        Shared s = c.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).computeIfAbsent(Shared.class, k -> start(tier), Shared.class);
        if (s.failure() != null) throw s.failure();
        return s.node();
    }

    private static Shared start(NodeTier tier) {
        try {
            Path dir = Files.createTempDirectory("mpshare-e2e-node"); // short paths: unix sockets live under it
            System.out.println("e2e/node: the node's files and logs are in " + dir + "/node (logs/, runtime/kubelet/kubelet.log, runtime/containerd/)");
            var started = ControlPlaneAccess.start(tier.repo(), tier.repo().resolve("e2e/node/target"));
            try {
                return new Shared(RealNode.start(tier, dir.resolve("node"), started.access()), started.cluster(), null);
            } catch (Exception | AssertionError e) {
                started.cluster().close();
                throw e;
            }
        } catch (Exception | AssertionError e) {
            return new Shared(null, null, new IllegalStateException("e2e/node: the node did not start: " + e.getMessage(), e));
        }
    }
}
