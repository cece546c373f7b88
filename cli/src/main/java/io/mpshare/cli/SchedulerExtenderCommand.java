package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.scheduler.ExtenderConfig;
import io.mpshare.scheduler.SchedulerExtender;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mpshare scheduler-extender}: the kube-scheduler extender (filter, prioritize, bind over HTTP).
 * Runs beside kube-scheduler in its pod; HA follows kube-scheduler's leader election. Wires the scheduler
 * module by hand and serves until SIGTERM.
 */
@Command(name = "scheduler-extender", mixinStandardHelpOptions = true,
        description = "kube-scheduler extender: places pods that ask for shared GPUs and books their GPUs.")
public final class SchedulerExtenderCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "" + Names.EXTENDER_PORT, description = "HTTP port (default ${DEFAULT-VALUE})") int port;
    @Option(names = "--policy", defaultValue = SchedulerExtender.DEFAULT_POLICY, description = "GPU placement: fragmentation (least expected GPU fragmentation for the task mix learned from recent pods), binpack (best fit) or spread (default ${DEFAULT-VALUE})") String policy;
    @Option(names = "--uid-rule", description = "refuse nodes whose MPS daemon serves another known runAsUser (MPS runs one UID at a time)") boolean uidRule;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of " + Names.RESOURCE_GPU_MEM + ": GiB or MiB (default ${DEFAULT-VALUE})") String unit;
    @Option(names = "--context-reserve-mib", defaultValue = "" + Names.DEFAULT_CONTEXT_RESERVE_MIB, description = "CUDA context reserve per container per GPU (default ${DEFAULT-VALUE})") long reserveMib;
    @Option(names = "--assume-ttl", defaultValue = "PT5M", description = "keep an unconfirmed booking this long before it may expire, ISO-8601 (default ${DEFAULT-VALUE})") Duration assumeTtl;
    @Option(names = "--expiry-period", defaultValue = "PT30S", description = "how often unconfirmed bookings are checked (default ${DEFAULT-VALUE})") Duration expiryPeriod;
    @Option(names = "--bind-attempts", defaultValue = "5", description = "annotation PATCH attempts when the pod changed meanwhile (default ${DEFAULT-VALUE})") int bindAttempts;
    @Option(names = "--http-threads", defaultValue = "0", description = "HTTP worker threads; 0 = one per CPU (default ${DEFAULT-VALUE})") int httpThreads;
    @Mixin KubeOptions kube;
    @Option(names = "--sync-timeout", defaultValue = "PT5M", description = "how long to wait for the first list of nodes and pods (default ${DEFAULT-VALUE})") Duration syncTimeout;

    @Override public Integer call() throws Exception {
        int threads = httpThreads > 0 ? httpThreads : Runtime.getRuntime().availableProcessors();
        var config = new ExtenderConfig(port, MemoryUnit.parse(unit), reserveMib, policy, uidRule, assumeTtl, expiryPeriod, bindAttempts, threads);
        var done = new CountDownLatch(1);
        try (KubernetesClient client = KubeConnector.system().connect(kube);
             var extender = new SchedulerExtender(config, client, SchedulerExtender.policy(policy, uidRule), InstantSource.system(), version())) {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(done::countDown));
            extender.start(syncTimeout);
            done.await();
        }
        return 0;
    }

    private static String version() {
        String v = SchedulerExtenderCommand.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
