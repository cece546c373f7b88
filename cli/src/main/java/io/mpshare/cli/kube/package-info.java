/**
 * How every subcommand finds and reaches the Kubernetes API server: the {@code --kubeconfig}/{@code --context} mixin
 * ({@link io.mpshare.cli.kube.KubeOptions}), the resolution order (flag, {@code KUBECONFIG}, {@code ~/.kube/config},
 * in-cluster; {@link io.mpshare.cli.kube.KubeconfigResolver}), the one place that builds the fabric8 {@code Config}
 * and client ({@link io.mpshare.cli.kube.KubeConnector}) and the start-up probe with its one-line errors
 * ({@link io.mpshare.cli.kube.ApiServerProbe}). docs/cli.md describes it for users.
 */
package io.mpshare.cli.kube;
