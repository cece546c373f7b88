package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AnswerSink;
import io.mpshare.deviceplugin.cluster.PodAnnotator;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.MpsControl;
import io.mpshare.nvml.Nvml;
import io.mpshare.policing.MpsServers;
import io.mpshare.policing.NodeView;
import io.mpshare.policing.Policer;
import io.mpshare.policing.PolicerConfig;
import io.mpshare.policing.ProcessKiller;
import io.mpshare.policing.SigkillProcessKiller;
import io.mpshare.policing.metrics.PolicerMetrics;
import io.mpshare.policing.proc.CgroupPidOwners;
import io.mpshare.policing.proc.ContainerIndex;
import io.mpshare.policing.proc.ProcFs;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The policer as the device plugin runs it: its view of the node ({@link PolicingPods}: the checked bookings of
 * {@link NodeBookings}, which {@link #listener()} follows) and the {@link ContainerIndex}, {@link CgroupPidOwners}
 * over the host's {@code /proc}, the MPS servers both colours' supervisors report ({@link StatusFileServers}), both
 * colours' control daemons,
 * Kubernetes Events, the Eviction API, {@code mpshare.io/usage} merge patches (changed values only), SIGKILL, and
 * its metrics in the agent's registry (served on {@code /metrics}). One thread samples and acts; another talks to the
 * API server for events and usage; {@code endPod} for a pod being deleted is queued on the policer's thread.
 */
public final class NodePolicer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(NodePolicer.class.getName());

    /**
     * What differs between production and tests.
     *
     * @param servers where the policer learns the MPS servers' PIDs (production: each colour's status.json)
     */
    public record Hooks(Function<String, MpsControl> controlForColour, MpsServers servers, ProcessKiller killer, PrometheusRegistry registry) {
        public Hooks {
            Objects.requireNonNull(controlForColour, "controlForColour");
            Objects.requireNonNull(servers, "servers");
            Objects.requireNonNull(killer, "killer");
            Objects.requireNonNull(registry, "registry");
        }

        /** {@code nvidia-cuda-mps-control} on {@code <runDir>/<colour>/pipe}, the colours' status files, SIGKILL, a fresh registry. */
        public static Hooks production(Path runDir) {
            return new Hooks(ColourDaemons.processControls(runDir, Optional.empty()), new StatusFileServers(runDir), new SigkillProcessKiller(),
                    new PrometheusRegistry());
        }

        public Hooks withRegistry(PrometheusRegistry r) { return new Hooks(controlForColour, servers, killer, r); }
    }

    private final ContainerIndex containers = new ContainerIndex();
    private final PodIndex pods = new PodIndex();
    private final ScheduledExecutorService exec;
    private final ExecutorService api;
    private final KubernetesClient evictions;
    private final Policer policer;
    private final PolicingPods listener;
    private final int gpuCount;

    /** @param bookings this node's checked bookings (add {@link #listener()} to its listeners) */
    public NodePolicer(PolicingConfig cfg, NodeBookings bookings, NodeInventory hw, Nvml nvml, KubernetesClient client,
                       Supplier<String> activeColour, Hooks hooks, InstantSource clock) {
        String node = bookings.node();
        this.exec = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "mpshare-policer"));
        this.api = Executors.newSingleThreadExecutor(r -> daemon(r, "mpshare-policer-api"));
        this.evictions = noRetry(client);
        this.gpuCount = hw.gpus().size();
        this.listener = new PolicingPods(bookings, containers, pods, this::endPodSoon);
        PolicerConfig pc = PolicerConfig.defaults(node).withPolicy(cfg.action()).withPeriod(cfg.interval()).withProcRoot(cfg.procRoot());
        this.policer = Policer.builder()
                .config(pc)
                .nvml(nvml)
                .view(listener)
                .owners(new CgroupPidOwners(new ProcFs(cfg.procRoot()), containers))
                .servers(hooks.servers())
                .daemons(new ColourDaemons(activeColour, hooks.controlForColour()))
                .killer(hooks.killer())
                .events(new KubeEventSink(client, node, pods, api))
                .evictor(new KubeEvictor(evictions, pods))
                .usage(UsageAnnotations.changedOnly(new PodAnnotator(client, api), pods))
                .metrics(new PolicerMetrics(hooks.registry(), node, cfg.podSeries()))
                .clock(clock)
                .executor(exec)
                .build();
    }

    /** A client for evictions that does not retry a 429 (a PodDisruptionBudget): the policer retries after {@code retryAfter}. */
    public static KubernetesClient noRetry(KubernetesClient client) {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build()).build();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Add to the node's bookings before the pod informer starts. */
    public NodeBookings.Listener listener() { return listener; }

    /** Where Allocate reports what it answered, while that differs from the pod's annotation. */
    public AnswerSink answerSink() { return listener; }

    /** The device plugin's health, for the per-GPU health metric. */
    public void health(HealthState h) {
        for (int i = 0; i < gpuCount; i++) listener.healthy(i, h.gpuHealthy(i));
    }

    public NodePolicer start() {
        policer.start();
        LOG.info("policer on: action " + policer.config().policy().label() + " every " + policer.config().period() + ", /proc at " + policer.config().procRoot());
        return this;
    }

    public Policer policer() { return policer; }

    /** What the policer judges by: the checked bookings, as answered. */
    public NodeView view() { return listener; }

    private void endPodSoon(String uid) {
        try {
            exec.execute(() -> {
                var ended = policer.endPod(uid);
                if (!ended.isEmpty()) LOG.info("pod " + uid + " is being deleted: asked MPS to end clients " + ended);
            });
        } catch (RejectedExecutionException e) {
            LOG.fine("not ending clients of " + uid + ": shutting down");
        }
    }

    @Override public void close() {
        policer.close();
        exec.shutdownNow();
        api.shutdownNow();
        evictions.close();
    }
}
