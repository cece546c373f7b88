package io.mpshare.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.SpreadPolicy;
import io.mpshare.kube.Fabric8PodApi;
import io.mpshare.kube.PodLists;
import io.mpshare.scheduler.bind.BindChecks;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.cluster.ClusterView;
import io.mpshare.scheduler.cluster.FailedBinds;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.http.ExtenderHttpServer;
import io.mpshare.scheduler.http.Inspect;
import io.mpshare.scheduler.metrics.ExtenderMetrics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;

/**
 * The extender, wired by hand: ledger → engine (with an injected policy) → verbs, binder, cluster view,
 * metrics, HTTP server. {@link #start} serves HTTP at once (healthz answers) and turns ready only after
 * the cluster view has rebuilt the ledger.
 */
public final class SchedulerExtender implements AutoCloseable {
    private final Ledger ledger;
    private final ClusterView view;
    private final ExtenderHttpServer http;
    private final ScheduledExecutorService timers;
    private final PipelineHolds holds;
    private final Duration holdTtl;

    public SchedulerExtender(ExtenderConfig config, KubernetesClient client, PlacementPolicy policy, InstantSource clock, String version) throws IOException {
        this.ledger = new Ledger(clock, config.assumeTtl());
        var engine = new PlacementEngine(ledger, policy);
        this.holds = new PipelineHolds(engine, clock, config.holdTtl());
        var verbs = new Verbs(engine, new DemandResolver(config.reserveMib(), config.unit()), config.unit(), holds);
        var failedBinds = new FailedBinds();
        var pending = new io.mpshare.scheduler.bind.PendingPods(); // binds start from the informer's copy of a pending pod
        var binder = new Binder(ledger, verbs, new Fabric8PodApi(client, Duration.ofSeconds(30)),
                new BindChecks(config.schedulerNames()), failedBinds, pending);
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("extender-expiry").daemon(true).factory());
        java.util.function.BiConsumer<io.mpshare.core.model.PodKey, io.mpshare.core.model.GpuDemand> seen = (k, d) -> { };
        if (policy instanceof LearnedFragmentationPolicy learned) seen = learned::observe; // the default policy learns its task mix
        this.view = new ClusterView(client, ledger, config.unit(), timers, config.expiryPeriod(), seen, failedBinds);
        if (policy instanceof LearnedFragmentationPolicy learned) { // and reads host CPU and memory from the same informers
            view.addNodeHandler(learned.host().nodeEvents());
            view.addPodHandler(learned.host().podEvents());
        }
        var recheck = new StaleRoomCheck(ledger, node -> PodLists.onNode(client, node),
                clock, config.recheckNodes(), Duration.ofSeconds(1));
        var metrics = new ExtenderMetrics(ledger);
        // preemption: priorities and nominated pods from the pod informer, victims per GPU, nominees' room held in filter
        var nominations = new io.mpshare.scheduler.preempt.Nominations(verbs.resolver(), config.unit());
        view.addPodHandler(nominations);
        view.addPodHandler(pending);
        this.http = new ExtenderHttpServer(new InetSocketAddress(config.port()), config.httpThreads(), verbs, binder,
                new Inspect(ledger), metrics, view::ready, version,
                new io.mpshare.scheduler.preempt.PreemptVerb(ledger, verbs, nominations),
                new io.mpshare.scheduler.preempt.NominationHold(ledger, policy, nominations), config.http(), recheck);
        this.holdTtl = config.holdTtl();
    }

    /** The default placement policy's name: fragmentation gradient descent with a learned task mix (docs/extender.md). */
    public static final String DEFAULT_POLICY = io.mpshare.core.Names.DEFAULT_PLACEMENT_POLICY;

    /** The policy a name on the command line stands for: fragmentation (the default), binpack or spread. */
    public static PlacementPolicy policy(String name, boolean uidRule) {
        return switch (name.toLowerCase(java.util.Locale.ROOT)) {
            case "fragmentation", "fgd" -> new LearnedFragmentationPolicy(uidRule);
            case "binpack" -> new BinpackPolicy(uidRule);
            case "spread" -> new SpreadPolicy(uidRule);
            default -> throw new IllegalArgumentException("unknown policy '" + name + "': use fragmentation, binpack or spread");
        };
    }

    /** Serves HTTP, then syncs the informers and rebuilds the ledger (readyz turns 200 after that). */
    public void start(Duration syncTimeout) throws TimeoutException, InterruptedException {
        http.start();
        view.start(syncTimeout);
        if (holds.enabled()) { // unclaimed holds (a pod kube-scheduler did not bind after all) go back after their TTL
            long every = Math.max(100, holdTtl.toMillis() / 4);
            timers.scheduleWithFixedDelay(holds::expire, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    public int port() { return http.port(); }

    public Ledger ledger() { return ledger; }

    public boolean ready() { return view.ready(); }

    /** Runs the assumed-allocation expiry now (it also runs every {@code expiryPeriod}); returns what it released. */
    public java.util.List<io.mpshare.core.ledger.Allocation> expireNow() { return view.expire(); }

    @Override public void close() {
        http.close();
        view.close();
        timers.shutdownNow();
    }
}
