/**
 * Fakes and fixture builders shared by tests of every module. {@link io.mpshare.testing.Pods} and
 * {@link io.mpshare.testing.Nodes} build fabric8 objects the way kube-scheduler's {@code MakePod()} does:
 * {@code Pods.pod("p").gpuMem(7).on("n1").build()}, {@code Nodes.node("n1").gpus(8, 143771).build()}.
 */
package io.mpshare.testing;
