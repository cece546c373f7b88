package io.mpshare.cli.kube;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the resolution order reads besides the flags: {@code $KUBECONFIG}, the home folder and whether this process
 * runs in a pod (the service account token is mounted and {@code KUBERNETES_SERVICE_HOST} is set).
 *
 * @param kubeconfigVariable the value of {@code KUBECONFIG}, or null
 * @param home               the user's home folder ({@code ~/.kube/config} lives under it)
 * @param inCluster          a service account token and {@code KUBERNETES_SERVICE_HOST} are present
 */
public record KubeEnvironment(String kubeconfigVariable, Path home, boolean inCluster) {
    /** Where kubelet mounts a pod's service account token. */
    public static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

    public KubeEnvironment {
        if (home == null) throw new IllegalArgumentException("home must be given");
    }

    /** This process's environment. */
    public static KubeEnvironment system() {
        String host = System.getenv("KUBERNETES_SERVICE_HOST");
        return new KubeEnvironment(System.getenv("KUBECONFIG"), Path.of(System.getProperty("user.home")),
                host != null && !host.isBlank() && Files.isReadable(SERVICE_ACCOUNT_TOKEN));
    }

    public Path homeKubeconfig() { return home.resolve(".kube").resolve("config"); }
}
