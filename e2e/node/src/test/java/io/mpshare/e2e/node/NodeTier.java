package io.mpshare.e2e.node;

import io.mpshare.e2e.k8s.Binaries;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether the real-node tier can run here, and with what. It needs root, containerd, ctr and runc, busybox-static,
 * the CNI {@code loopback} plugin (Debian: {@code containerd runc busybox-static containernetworking-plugins}, which
 * {@code bin/ci-deps} installs when root and missing), the control-plane binaries of {@code e2e/k8s}, and a kubelet:
 * {@code $MPSHARE_KUBELET} (the binary), else the one beside those binaries ({@code $KUBEBUILDER_ASSETS}, or the
 * shared k8s archives beside the clone).
 */
record NodeTier(Path kubelet, Path cniBin, Path repo) {
    static final Path CNI_BIN = Path.of("/usr/lib/cni");

    /** Ready to run, or why not (one line, saying what to install or set). */
    sealed interface Check permits Ready, Unavailable {}

    record Ready(NodeTier tier) implements Check {}

    record Unavailable(String reason) implements Check {}

    /**
     * The tier, or the test is skipped with the one-line reason. Under CI ({@code CI=true}) it is a failure instead:
     * CI runs as root with Debian reachable, so the tier must run there.
     */
    static NodeTier requireOrSkip() {
        return switch (check(System.getenv())) {
            case Ready r -> r.tier();
            case Unavailable u when "true".equals(System.getenv("CI")) ->
                    throw new AssertionError(u.reason().replace(" skipped:", " cannot run under CI=true:"));
            case Unavailable u -> {
                org.junit.jupiter.api.Assumptions.abort(u.reason());
                yield null;
            }
        };
    }

    static Check check(Map<String, String> env) {
        Path repo = repoRoot();
        if (!isRoot()) return new Unavailable("e2e/node skipped: not root (kubelet and containerd need root; CI runs it as root)");
        installDeps(repo);
        List<String> missing = new ArrayList<>();
        for (String b : List.of("containerd", "ctr", "runc")) if (onPath(b) == null) missing.add(b);
        if (!Files.isExecutable(TestImages.BUSYBOX)) missing.add("/bin/busybox (busybox-static)");
        if (!Files.isExecutable(CNI_BIN.resolve("loopback"))) missing.add(CNI_BIN + "/loopback (containernetworking-plugins)");
        if (!missing.isEmpty()) return new Unavailable("e2e/node skipped: missing " + String.join(", ", missing)
                + "; run bin/ci-deps as root (apt-get install -y containerd runc busybox-static containernetworking-plugins)");
        String noControlPlane = ControlPlaneAccess.missing(repo);
        if (noControlPlane != null) return new Unavailable("e2e/node skipped: " + noControlPlane);
        Path kubelet = kubelet(env, repo);
        if (kubelet == null || !Files.isExecutable(kubelet)) return new Unavailable("e2e/node skipped: no kubelet: set MPSHARE_KUBELET to a kubelet "
                + Binaries.VERSION + " binary, or put it beside the control-plane binaries (" + Binaries.ENV_ASSETS + ", or the shared k8s archives)");
        return new Ready(new NodeTier(kubelet, CNI_BIN, repo));
    }

    /** {@code $MPSHARE_KUBELET}, else the kubelet beside the control-plane binaries e2e/k8s finds ({@link Binaries}). */
    private static Path kubelet(Map<String, String> env, Path repo) {
        if (env.get("MPSHARE_KUBELET") != null) return Path.of(env.get("MPSHARE_KUBELET"));
        return Binaries.locate(env, repo) instanceof Binaries.Found f ? f.binaries().kubelet().orElse(null) : null;
    }

    /** bin/ci-deps installs the Debian packages of the test tiers when root and missing (a no-op when present). */
    private static void installDeps(Path repo) {
        Path deps = repo.resolve("bin/ci-deps");
        if (!Files.isExecutable(deps)) return;
        try {
            Host.run(List.of(deps.toString()), 900);
        } catch (IOException | InterruptedException e) {
            System.err.println("e2e/node: bin/ci-deps failed: " + e.getMessage());
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status")))
                if (line.startsWith("Uid:")) return line.split("\\s+")[1].equals("0");
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    static Path onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) return p;
        }
        for (String d : List.of("/usr/sbin", "/sbin")) if (Files.isExecutable(Path.of(d, name))) return Path.of(d, name);
        return null;
    }

    /** The clone's root: surefire runs in the module folder (e2e/node). */
    static Path repoRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) if (Files.isExecutable(p.resolve("bin/test"))) return p;
        return here;
    }
}
