package io.mpshare.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.SpreadPolicy;
import io.mpshare.kube.Fabric8PodApi;
import io.mpshare.kube.NamespaceKinds;
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
import io.mpshare.scheduler.requeue.Refusals;
import io.mpshare.scheduler.requeue.Requeue;
import io.mpshare.scheduler.verbs.Verbs;

import java.io.IOException;
import java.net.InetAddress;
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
 * binder, cluster view, preemption, the requeue of refused pods, metrics, HTTP server. {@link #start} serves HTTP at once (healthz answers) and
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
    private final AskReader asks;
    private final NamespaceKinds kinds;
    private final Nominations nominations;
    private final PendingPods pending;
    private final BindChecks checks;
    /** Wakes refused pods once room for them appears; null when turned off. */
    private final Requeue requeue;

    /** Wired, not started: {@link #start()} serves and syncs (tests inject their policy and clock here). */
    public SchedulerExtender(ExtenderConfig config, KubernetesClient client, PlacementPolicy policy, InstantSource clock) throws IOException {
        this.config = config;
        this.ledger = new Ledger(clock, config.assumeTtl());
        var engine = new PlacementEngine(ledger, policy);
        // the fault-domain kind of each namespace, as the device plugin reads it: which pods the UID rule judges, which share a daemon
        this.kinds = new NamespaceKinds(client, config.faultDomainDefault());
        this.asks = new AskReader(config.unit(), new DemandResolver(config.reserveMib(), config.unit()), kinds);
        this.holds = new PipelineHolds(engine, clock, config.holdTtl());
        // preemption: priorities and nominated pods from the pod informer, victims per GPU, nominees' room held in
        // filter, prioritize and bind
        this.nominations = new Nominations(asks, clock, Nominations.DEFAULT_PROVISIONAL_TTL);
        var held = new NominationHold(ledger, policy, nominations);
        var verbs = new Verbs(engine, asks, holds, held, config.shortlist(), config.pickInFilter());
        this.pending = new PendingPods(); // binds start from the informer's copy of a pending pod
        var api = new Fabric8PodApi(client, Duration.ofSeconds(30));
        this.checks = new BindChecks(config.schedulerNames());
        var binder = new Binder(engine, holds, asks, api, checks, pending, held);
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("extender-expiry").daemon(true).factory());
        BiConsumer<PodKey, GpuDemand> seen = (k, d) -> { };
        if (policy instanceof LearnedFragmentationPolicy learned) seen = learned::observe; // the default policy learns its task mix
        this.view = new ClusterView(client, ledger, config.unit(), timers, config.expiryPeriod(), seen, checks::accepts, asks);
        if (policy instanceof LearnedFragmentationPolicy learned) { // and reads host CPU and memory from the same informers
            learned.touchOnHostChange(ledger); // remembered scores follow each node's host room too
            view.addNodeHandler(learned.host().nodeEvents());
            view.addPodHandler(learned.host().podEvents());
        }
        var recheck = new StaleRoomCheck(ledger, node -> PodLists.onNode(client, node), clock, config.recheckNodes(), Duration.ofSeconds(1));
        view.addPodHandler(nominations);
        view.addPodHandler(pending);
        var metrics = new ExtenderMetrics(ledger);
        // refused pods are woken when room for them appears: the ledger's releases and the nominations' ended holds
        Requeue.Fit fit = (ask, node) -> !verbs.filter(ask, List.of(node)).fits().isEmpty() && (!held.active() || held.refusal(ask, node) == null);
        this.requeue = config.requeueRate() > 0 ? new Requeue(fit, api::requeue, metrics::requeue,
                new Requeue.Limits(Duration.ofSeconds(1), config.requeueRate(), (int) Math.max(10, Math.ceil(config.requeueRate() * 2.5))), clock) : null;
        if (requeue != null) {
            ledger.onRoomGrew(requeue);
            nominations.onHoldEnded(requeue);
            view.addPodHandler(requeue);
        }
        var address = new InetSocketAddress(config.http().loopbackOnly() ? InetAddress.getLoopbackAddress() : null, config.port());
        var parts = new ExtenderHttpServer.Parts(address, config.httpThreads(), config.http(), config.version(), view::ready, verbs, binder, recheck,
                new PreemptVerb(ledger, policy, nominations), held, new Inspect(ledger), metrics, requeue == null ? Refusals.NONE : requeue,
                config.probePort() == 0 ? null : new InetSocketAddress(config.probePort()));
        this.http = new ExtenderHttpServer(parts);
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
        // namespaces first: a booking restored before its namespace is listed would get the default kind
        kinds.start(Duration.ofMinutes(10)).awaitSynced(config.syncTimeout());
        view.start(config.syncTimeout());
        if (holds.enabled()) { // unclaimed holds (a pod kube-scheduler did not bind after all) go back after their TTL
            long every = Math.max(100, config.holdTtl().toMillis() / 4);
            timers.scheduleWithFixedDelay(holds::expire, every, every, TimeUnit.MILLISECONDS);
        }
        timers.scheduleWithFixedDelay(nominations::expire, 1, 1, TimeUnit.SECONDS); // nominations kube-scheduler never confirmed
        if (requeue != null) {
            requeue.start();
            // pods refused before this process started (a restart beside a running kube-scheduler) are woken if they fit now
            requeue.sweep(pending.all(), checks::accepts, asks, ledger.nodes().stream().map(NodeState::name).toList());
        }
    }

    public int port() { return http.port(); }

    public Ledger ledger() { return ledger; }

    public boolean ready() { return view.ready(); }

    /** Runs the assumed-allocation expiry now (it also runs every {@code expiryPeriod}); returns what it released. */
    public List<Allocation> expireNow() { return view.expire(); }

    /** The port of the probes' listener, -1 when there is none. */
    public int probePort() { return http.probePort(); }

    @Override public void close() {
        http.close();
        if (requeue != null) requeue.close();
        view.close();
        kinds.close();
        timers.shutdownNow();
    }
}
