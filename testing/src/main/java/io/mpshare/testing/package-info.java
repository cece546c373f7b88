/**
 * Fakes, fixture builders and test helpers shared by the tests of every module. {@link io.mpshare.testing.Pods} and
 * {@link io.mpshare.testing.Nodes} build fabric8 objects the way kube-scheduler's {@code MakePod()} does:
 * {@code Pods.pod("p").gpuMem(7).on("n1").build()}, {@code Nodes.node("n1").gpus(8, 143771).build()}.
 * {@link io.mpshare.testing.ManualScheduler} is an executor and clock the test advances; {@link io.mpshare.testing.Waits}
 * the one bounded poll for state another thread or process owns; {@link io.mpshare.testing.Prerequisites} skips a test
 * whose outside prerequisite is missing, and fails it under {@code CI=true}; {@link io.mpshare.testing.ClassRefs} reads
 * what compiled classes refer to, for boundary tests. A module's fakes of its own interfaces travel in its test-jar
 * ({@code mps}: the modelled MPS daemon; {@code deviceplugin}: the fake kubelet); {@code FakeNvml} is in {@code nvml}'s
 * main code because {@code --fake-gpus} uses it.
 */
package io.mpshare.testing;
