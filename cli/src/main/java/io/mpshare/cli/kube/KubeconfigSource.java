package io.mpshare.cli.kube;

import java.nio.file.Path;
import java.util.List;

/** Where the API server's address and credentials come from, as {@link KubeconfigResolver} found them. */
public sealed interface KubeconfigSource {
    /** For messages: names the file and how it was chosen. */
    String describe();

    /** {@code --kubeconfig FILE}. */
    record Flag(Path file) implements KubeconfigSource {
        @Override public String describe() { return "--kubeconfig " + file; }
    }

    /** {@code $KUBECONFIG}: the files of the list that exist, in order (fabric8 merges them as kubectl does). */
    record Variable(String value, List<Path> files) implements KubeconfigSource {
        public Variable {
            files = List.copyOf(files);
            if (files.isEmpty()) throw new IllegalArgumentException("KUBECONFIG source without a file");
        }

        @Override public String describe() {
            return files.size() == 1 ? "KUBECONFIG " + files.getFirst() : "KUBECONFIG " + value;
        }
    }

    /** {@code ~/.kube/config}. */
    record Home(Path file) implements KubeconfigSource {
        @Override public String describe() { return file.toString(); }
    }

    /** No kubeconfig, but this process runs in a pod: its service account. */
    record InCluster() implements KubeconfigSource {
        @Override public String describe() { return "the pod's service account (no kubeconfig)"; }
    }
}
