package io.mpshare.cli.kube;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The resolution order, in one place: {@code --kubeconfig FILE}, else {@code $KUBECONFIG}, else
 * {@code ~/.kube/config}, else the pod's service account. Pure apart from asking whether files exist.
 * Unlike fabric8's own auto-configuration it never falls through silently: a flag or variable that names no file is
 * an error that says so, and with nothing at all outside a pod the answer says what to pass.
 */
public final class KubeconfigResolver {
    private KubeconfigResolver() {}

    /** The outcome: a source, or why there is none (one line that says what to change). */
    public sealed interface Resolution {
        record Found(KubeconfigSource source) implements Resolution {}

        record Missing(String reason) implements Resolution {}
    }

    public static Resolution resolve(Path flag, KubeEnvironment env) {
        if (flag != null) {
            if (Files.isDirectory(flag)) return new Resolution.Missing("--kubeconfig " + flag + " is a folder: pass the kubeconfig file itself");
            if (!Files.isRegularFile(flag)) return new Resolution.Missing("--kubeconfig " + flag
                    + ": no such file. Pass the path of a kubeconfig ('kubectl config view --raw > FILE' writes one)");
            if (!Files.isReadable(flag)) return new Resolution.Missing("--kubeconfig " + flag + ": cannot read the file (permissions)");
            return new Resolution.Found(new KubeconfigSource.Flag(flag));
        }
        String variable = env.kubeconfigVariable();
        if (variable != null && !variable.isBlank()) {
            List<Path> files = Arrays.stream(variable.split(File.pathSeparator)).filter(s -> !s.isBlank())
                    .map(Path::of).filter(Files::isRegularFile).toList();
            if (files.isEmpty()) return new Resolution.Missing("KUBECONFIG=" + variable
                    + " names no file that exists: point KUBECONFIG at your kubeconfig, unset it, or pass --kubeconfig FILE");
            return new Resolution.Found(new KubeconfigSource.Variable(variable, files));
        }
        Path home = env.homeKubeconfig();
        if (Files.isRegularFile(home)) return new Resolution.Found(new KubeconfigSource.Home(home));
        if (env.inCluster()) return new Resolution.Found(new KubeconfigSource.InCluster());
        return new Resolution.Missing("no kubeconfig: --kubeconfig not given, KUBECONFIG not set, " + home
                + " does not exist, and this is not a pod with a service account. Pass --kubeconfig FILE or set KUBECONFIG");
    }
}
