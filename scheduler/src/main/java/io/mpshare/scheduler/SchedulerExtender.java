package io.mpshare.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.SpreadPolicy;
import io.mpshare.kube.Fabric8PodApi;
import io.mpshare.kube.PodLists;
import io.mpshare.scheduler.bind.BindChecks;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.PendingPods;
import io.mpshare.scheduler.cluster.ClusterView;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.http.ExtenderHttpServer;
import io.mpshare.scheduler.http.Inspect;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.scheduler.preempt.NominationHold;
import io.mpshare.scheduler.preempt.Nominations;
import io.mpshare.scheduler.preempt.PreemptVerb;
import io.mpshare.scheduler.verbs.Verbs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The extender, wired by hand from one {@link ExtenderConfig}: ledger → engine (with an injected policy) → verbs,
 * binder, cluster view, preemption, metrics, HTTP server. {@link #start} serves HTTP at once (healthz answers) and
 * turns ready only after the cluster view has rebuilt the ledger.
 */
public final class SchedulerExtender implements AutoCloseable {
    /** The default placement policy's name: fragmentation gradient descent with a learned task mix (docs/extender.md). */
    public static final String DEFAULT_POLICY = Names.DEFAULT_PLACEMENT_POLICY;

    private final Ledger ledger;
    private final ClusterView view;
    private final ExtenderHttpServer http;
    private final ScheduledExecutorService timers;
    private final PipelineHolds holds;
    private final ExtenderConfig config;

    /** Wired, not started: {@link #start()} serves and syncs (tests inject their policy and clock here). */
    public SchedulerExtender(ExtenderConfig config, KubernetesClient client, PlacementPolicy policy, InstantSource clock) throws IOException {
        this.config = config;
        this.ledger = new Ledger(clock, config.assumeTtl());
        var engine = new PlacementEngine(ledger, policy);
        var asks = new AskReader(config.unit(), new DemandResolver(config.reserveMib(), config.unit()));
        this.holds = new PipelineHolds(engine, clock, config.holdTtl());
        var verbs = new Verbs(engine, asks, holds);
        var pending = new PendingPods(); // binds start from the informer's copy of a pending pod
        var binder = new Binder(engine, holds, asks, new Fabric8PodApi(client, Duration.ofSeconds(30)),
                new BindChecks(config.schedulerNames()), pending);
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("extender-expiry").daemon(true).factory());
        BiConsumer<PodKey, GpuDemand> seen = (k, d) -> { };
        if (policy instanceof LearnedFragmentationPolicy learned) seen = learned::observe; // the default policy learns its task mix
        this.view = new ClusterView(client, ledger, config.unit(), timers, config.expiryPeriod(), seen);
        if (policy instanceof LearnedFragmentationPolicy learned) { // and reads host CPU and memory from the same informers
            view.addNodeHandler(learned.host().nodeEvents());
            view.addPodHandler(learned.host().podEvents());
        }
        var recheck = new StaleRoomCheck(ledger, node -> PodLists.onNode(client, node), clock, config.recheckNodes(), Duration.ofSeconds(1));
        // preemption: priorities and nominated pods from the pod informer, victims per GPU, nominees' room held in filter
        var nominations = new Nominations(asks.resolver(), config.unit());
        view.addPodHandler(nominations);
        view.addPodHandler(pending);
        this.http = new ExtenderHttpServer(new ExtenderHttpServer.Parts(new InetSocketAddress(config.port()), config.httpThreads(),
                config.http(), config.version(), view::ready, verbs, binder, recheck, new PreemptVerb(ledger, policy, nominations),
                new NominationHold(ledger, policy, nominations), new Inspect(ledger), new ExtenderMetrics(ledger)));
    }

    /**
     * The extender of {@code config}, started: its policy by name ({@link #policy}), the system clock; HTTP served,
     * informers synced, the ledger rebuilt (or a {@link TimeoutException} after {@link ExtenderConfig#syncTimeout}).
     */
    public static SchedulerExtender start(ExtenderConfig config, KubernetesClient client) throws IOException, TimeoutException, InterruptedException {
        var extender = new SchedulerExtender(config, client, policy(config.policy(), config.uidRule()), InstantSource.system());
        try {
            extender.start();
            return extender;
        } catch (TimeoutException | InterruptedException | RuntimeException e) {
            extender.close();
            throw e;
        }
    }

    /** The policy a name on the command line stands for: fragmentation (the default), binpack or spread. */
    public static PlacementPolicy policy(String name, boolean uidRule) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "fragmentation", "fgd" -> new LearnedFragmentationPolicy(uidRule);
            case "binpack" -> new BinpackPolicy(uidRule);
            case "spread" -> new SpreadPolicy(uidRule);
            default -> throw new IllegalArgumentException("unknown policy '" + name + "': use fragmentation, binpack or spread");
        };
    }

    /** Serves HTTP, then syncs the informers and rebuilds the ledger (readyz turns 200 after that). */
    public void start() throws TimeoutException, InterruptedException {
        http.start();
        view.start(config.syncTimeout());
        if (holds.enabled()) { // unclaimed holds (a pod kube-scheduler did not bind after all) go back after their TTL
            long every = Math.max(100, config.holdTtl().toMillis() / 4);
            timers.scheduleWithFixedDelay(holds::expire, every, every, TimeUnit.MILLISECONDS);
        }
    }

    public int port() { return http.port(); }

    public Ledger ledger() { return ledger; }

    public boolean ready() { return view.ready(); }

    /** Runs the assumed-allocation expiry now (it also runs every {@code expiryPeriod}); returns what it released. */
    public List<Allocation> expireNow() { return view.expire(); }

    @Override public void close() {
        http.close();
        view.close();
        timers.shutdownNow();
    }
}
