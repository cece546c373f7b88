package io.mpshare.deviceplugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AllocateHooks;
import io.mpshare.deviceplugin.allocation.AllocationBook;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.allocation.AnswerBuilder;
import io.mpshare.deviceplugin.allocation.AnswerLog;
import io.mpshare.deviceplugin.allocation.AnswerSink;
import io.mpshare.deviceplugin.allocation.Reconciler;
import io.mpshare.deviceplugin.ceiling.CeilingController;
import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.deviceplugin.cluster.BookingRefusals;
import io.mpshare.deviceplugin.cluster.DomainsPublisher;
import io.mpshare.deviceplugin.cluster.KubeEvents;
import io.mpshare.kube.NamespaceKinds;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.cluster.NodePodCache;
import io.mpshare.deviceplugin.cluster.NodeView;
import io.mpshare.deviceplugin.cluster.PodAnnotator;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.driver.DeviceLists;
import io.mpshare.deviceplugin.domains.DomainController;
import io.mpshare.deviceplugin.domains.DomainMetrics;
import io.mpshare.deviceplugin.domains.DomainNotices;
import io.mpshare.deviceplugin.domains.DomainSupervisor;
import io.mpshare.deviceplugin.domains.DomainsConfig;
import io.mpshare.deviceplugin.domains.FaultWatch;
import io.mpshare.deviceplugin.domains.SupervisorDomains;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.deviceplugin.health.DaemonProbe;
import io.mpshare.deviceplugin.health.HealthMonitor;
import io.mpshare.deviceplugin.kubelet.CoreHandler;
import io.mpshare.deviceplugin.kubelet.MemoryHandler;
import io.mpshare.deviceplugin.kubelet.PluginEndpoint;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient;
import io.mpshare.deviceplugin.kubelet.ResourceServer;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.deviceplugin.policing.NodePolicer;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.preflight.InstanceLock;
import io.mpshare.mps.Colour;
import io.mpshare.nvml.Nvml;
import io.mpshare.policing.metrics.PolicerMetrics.PodSeries;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The whole node agent, wired by hand: NVML inventory → Node annotation; health monitor → device lists; two device
 * plugin endpoints registered with kubelet; Allocate over the pod informer; reconcile from pod-resources; the policer
 * ({@link NodePolicer}) over the same informer. The one composition root of {@code mpshare device-plugin}:
 * {@link #start} takes the flags ({@link DevicePluginConfig}) and what the agent talks to ({@link Io}); test harnesses
 * (fake kubelet sockets, FakeNvml, a mock API server) and the GPU suite (real NVML, real daemon probe) start it the same
 * way.
 */
public final class DevicePluginNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DevicePluginNode.class.getName());
    /** Where this process's memory map names the NVML library it loaded (the device-list strategies' driver folder). */
    private static final Path PROC_SELF_MAPS = Path.of("/proc/self/maps");

    private final ScheduledExecutorService exec;
    private final ExecutorService slow;
    private final EventLoopGroup group;
    private final NodePodCache pods;
    private final NodeBookings bookings;
    private final BookingRefusals refusals;
    private final CeilingController ceilings;
    private final NodeView nodeView;
    private final HealthMonitor health;
    private final PluginEndpoint memEndpoint;
    private final PluginEndpoint coreEndpoint;
    private final PodResourcesClient podResources;
    private final AllocationBook book;
    private final Reconciler reconciler;
    private final NodePolicer policer;
    private final PrometheusRegistry registry;
    /** The plugin folder's lock ({@link DevicePluginPreflight}), held until {@link #close}. */
    private InstanceLock claim;
    private final NamespaceKinds kinds;
    private final DomainController domains;
    private final ExecutorService api;
    private final ExecutorService calls;

    /**
     * What the agent talks to beyond its flags.
     *
     * @param daemonProbe builds the daemon probe from the active-colour supplier (production: {@code SupervisorSocketProbe})
     * @param policing    the policer's MPS controls per colour, process killer and metrics registry (tests: FakeMpsControl,
     *                    a recording killer); used only when {@code config.policing().enabled()}
     * @param domains     each colour's supervisor, for the fault domains (production: its unix socket under the run dir)
     */
    public record Io(Nvml nvml, KubernetesClient client, Function<Supplier<String>, DaemonProbe> daemonProbe, NodePolicer.Hooks policing,
                     InstantSource clock, Function<String, DomainSupervisor> domains) {
        public Io {
            Objects.requireNonNull(nvml, "nvml");
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(daemonProbe, "daemonProbe");
            Objects.requireNonNull(policing, "policing");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(domains, "domains");
        }

        /** Production policing hooks and supervisors for {@code runDir}, and the system clock. */
        public static Io of(Nvml nvml, KubernetesClient client, Function<Supplier<String>, DaemonProbe> daemonProbe, Path runDir) {
            return new Io(nvml, client, daemonProbe, NodePolicer.Hooks.production(runDir), InstantSource.system(),
                    colour -> SupervisorDomains.overSocket(colour, runDir, SupervisorDomains.TIMEOUT));
        }

        public Io withPolicing(NodePolicer.Hooks hooks) { return new Io(nvml, client, daemonProbe, hooks, clock, domains); }

        public Io withDomains(Function<String, DomainSupervisor> d) { return new Io(nvml, client, daemonProbe, policing, clock, d); }
    }

    private DevicePluginNode(ScheduledExecutorService exec, ExecutorService slow, EventLoopGroup group, NodePodCache pods, NodeBookings bookings,
                             BookingRefusals refusals, NodeView nodeView, HealthMonitor health, PluginEndpoint memEndpoint,
                             PluginEndpoint coreEndpoint, PodResourcesClient podResources, AllocationBook book, Reconciler reconciler,
                             CeilingController ceilings, NodePolicer policer, PrometheusRegistry registry, NamespaceKinds kinds,
                             DomainController domains, ExecutorService api, ExecutorService calls) {
        this.kinds = kinds;
        this.domains = domains;
        this.api = api;
        this.calls = calls;
        this.bookings = bookings;
        this.refusals = refusals;
        this.ceilings = ceilings;
        this.policer = policer;
        this.registry = registry;
        this.exec = exec;
        this.slow = slow;
        this.group = group;
        this.pods = pods;
        this.nodeView = nodeView;
        this.health = health;
        this.memEndpoint = memEndpoint;
        this.coreEndpoint = coreEndpoint;
        this.podResources = podResources;
        this.book = book;
        this.reconciler = reconciler;
    }

    public static DevicePluginNode start(DevicePluginConfig cfg, Io io) throws InterruptedException {
        Nvml nvml = io.nvml();
        KubernetesClient client = io.client();
        InstantSource clock = io.clock();
        InstanceLock claim = DevicePluginPreflight.of(cfg.pluginDir(), 0).claim();   // refuses before anything changes
        NodeInventory hw = InventoryPublisher.readHardware(nvml, cfg.nodeName());
        if (hw.gpus().isEmpty()) throw new IllegalStateException("NVML lists no GPU on node " + cfg.nodeName() + ": nothing to share");
        var memCheck = DeviceCatalog.memory(hw, cfg.unit(), HealthState.healthy());
        DeviceCatalog.checkSize(Names.RESOURCE_GPU_MEM, cfg.unit(), memCheck, cfg.listBudgetBytes());
        // how containers reach their GPUs (--device-list-strategy), found before anything starts: a driver not found stops here
        var access = DeviceLists.open(cfg.deviceList(), nvml, hw, PROC_SELF_MAPS);

        ScheduledExecutorService exec = Executors.newScheduledThreadPool(3, r -> {
            Thread t = new Thread(r, "mpshare-device-plugin");
            t.setDaemon(true);
            return t;
        });
        EventLoopGroup group = UnixSockets.newGroup(2);
        var nodeView = new NodeView(client, cfg.nodeName()).start(Duration.ofMinutes(10));
        var publisher = new InventoryPublisher(client, cfg.nodeName(), hw, clock, cfg.inventoryRefresh());
        var annotator = new PodAnnotator(client, exec);
        // every pod event of this node read once and checked against the pod's own resources, for Allocate, ceilings and policer
        var refusals = new BookingRefusals(io.policing().registry(), cfg.nodeName());
        var bookings = new NodeBookings(cfg.nodeName(), hw, cfg.unit(), refusals);
        var pods = new NodePodCache(client, bookings, cfg.podFieldSelector());
        NodePolicer policer = cfg.policing().enabled()
                ? new NodePolicer(cfg.policing(), bookings, hw, nvml, client, nodeView::activeColour, io.policing(), clock)
                : null;
        var book = new AllocationBook(bookings, cfg.unit(), hw, nodeView::activeColour, new AnswerLog(),
                policer != null ? policer.answerSink() : AnswerSink.NONE);
        // fault domains: each booked pod's MPS daemon, kept on the colours' supervisors before its container can start
        var api = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mpshare-node-api");
            t.setDaemon(true);
            return t;
        });
        var calls = Executors.newVirtualThreadPerTaskExecutor();
        var kinds = new NamespaceKinds(client, cfg.domains().clusterDefault()).start(Duration.ofMinutes(10));
        kinds.awaitSynced(Duration.ofSeconds(60));
        var domains = domainController(cfg, io, hw, book, kinds, api, calls);
        bookings.addListener(domains);
        bookings.addListener(book);
        // a faulted domain closes its GPU only when asked to (docs/decisions/domain-health.md)
        Supplier<Map<Integer, String>> faultedGpus = cfg.domains().health() == DomainsConfig.Health.GPU ? domains::faultedGpus : Map::of;
        var monitor = new HealthMonitor(nvml, io.daemonProbe().apply(nodeView::activeColour), clock, cfg.xidHold(), faultedGpus);
        // layer 2: each GPU's server ceiling on both colours' node daemons follows the bookings of the pods they serve
        // (docs/architecture.md); a domain's ceiling goes with its PUT
        var ceilings = new CeilingController(hw, () -> bookings.booked().stream().filter(a -> domains.onNodeDaemon(a.podUid())).toList(),
                CeilingController.socketTargets(cfg.runDir(), CeilingController.SOCKET_TIMEOUT));
        bookings.addListener(ceilings);
        if (policer != null) bookings.addListener(policer.listener());
        pods.start(Duration.ofMinutes(10));
        pods.awaitSynced(Duration.ofSeconds(60));

        var podResources = new PodResourcesClient(cfg.podResourcesSocket(), group);
        var reconciler = new Reconciler(() -> podResources.list(Names.RESOURCE_GPU_MEM), book, annotator, clock, Duration.ofMinutes(10));
        var hooks = new AllocateHooks(() -> reconciler.soon(exec, cfg.reconcileDelay()), budget -> {
            // no waiting pod can own a call: claims wrongly guessed are moved (pod-resources), then the node's pods read directly
            try { reconciler.reconcile(); } catch (RuntimeException e) { LOG.fine("reconcile before a direct read failed: " + e.getMessage()); }
            pods.readThrough(budget);
        }, cfg.fallbackBudget());
        var manager = new AllocationManager(book, new AnswerBuilder(cfg.runDir(), cfg.mountDevShm(), cfg.unit(), access), clock,
                new AllocationManager.ChangeWaiter() {
                    @Override public long version() { return pods.version(); }

                    @Override public boolean awaitChange(long seen, Duration timeout) throws InterruptedException { return pods.awaitChange(seen, timeout); }
                }, cfg.informerWait(), hooks, domains, cfg.domains().daemonWait());

        // Allocate is answered on the gRPC event loop when a pod is waiting; a call that must wait for the informer moves here
        var slow = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mpshare-allocate-wait");
            t.setDaemon(true);
            return t;
        });
        var memServer = new ResourceServer(new MemoryHandler(hw, cfg.unit(), monitor::current, manager), slow);
        var coreServer = new ResourceServer(new CoreHandler(hw, monitor::current), slow);
        monitor.addListener(h -> {
            if (policer != null) policer.health(h);
            memServer.publish();
            coreServer.publish();
            exec.execute(() -> publishQuietly(publisher, h));
        });
        monitor.tick();
        publishQuietly(publisher, monitor.current());
        try {
            var r = reconciler.reconcile();   // before serving: pods admitted by an earlier run must not be matched again
            if (r.marked() > 0) LOG.info("start-up reconcile: " + r);
        } catch (RuntimeException e) {
            LOG.warning("start-up reconcile from pod-resources failed (kubelet not up yet?): " + e.getMessage());
        }
        var mem = new PluginEndpoint(memServer, cfg.pluginDir(), DevicePluginConfig.MEM_SOCKET, cfg.kubeletSocket(), group);
        var core = new PluginEndpoint(coreServer, cfg.pluginDir(), DevicePluginConfig.CORE_SOCKET, cfg.kubeletSocket(), group);
        mem.ensure();
        core.ensure();
        monitor.start(exec, cfg.healthPeriod());
        mem.start(exec, cfg.endpointPeriod());
        core.start(exec, cfg.endpointPeriod());
        reconciler.start(exec, cfg.reconcilePeriod());
        if (policer != null) policer.start();
        ceilings.start(exec, CeilingController.DEFAULT_PERIOD);
        domains.start(exec, cfg.domains().period());
        exec.scheduleWithFixedDelay(() -> publishQuietly(publisher, monitor.current()), 60, 60, TimeUnit.SECONDS);
        LOG.info("mpshare device plugin on node " + cfg.nodeName() + ": " + hw.gpus().size() + " GPU(s), gpu-mem in " + cfg.unit().symbol());
        var node = new DevicePluginNode(exec, slow, group, pods, bookings, refusals, nodeView, monitor, mem, core, podResources, book, reconciler,
                ceilings, policer, io.policing().registry(), kinds, domains, api, calls);
        node.claim = claim;
        return node;
    }

    /**
     * The fault-domain controller: each colour's supervisor, the namespaces' kinds, the suspects an earlier run published
     * on the Node, Events and metrics for faults and stalls, the Node's {@code mpshare.io/domains} after each round.
     */
    private static DomainController domainController(DevicePluginConfig cfg, Io io, NodeInventory hw, AllocationBook book, NamespaceKinds kinds,
                                                     ExecutorService api, ExecutorService calls) {
        InstantSource clock = io.clock();
        // per-pod and per-namespace fault series only where the per-pod series are asked for (--pod-metrics)
        var metrics = new DomainMetrics(io.policing().registry(), cfg.nodeName(), cfg.policing().podSeries() == PodSeries.INCLUDED);
        var notices = new DomainNotices(new KubeEvents(io.client(), cfg.nodeName(), api), metrics, cfg.domains().suspects(), clock);
        var faults = new FaultWatch(new FaultSuspects(cfg.domains().suspects()), clock, notices);
        var published = new DomainsPublisher(io.client(), cfg.nodeName(), api);
        published.read().ifPresent(d -> d.suspects().forEach(s -> faults.restore(s.workload(), s.until())));
        Map<String, DomainSupervisor> colours = new LinkedHashMap<>();
        for (Colour c : Colour.values()) colours.put(c.id(), io.domains().apply(c.id()));
        return new DomainController(new DomainController.Parts(cfg.nodeName(), hw, cfg.runDir(), colours, kinds,
                uid -> Set.of(book.coloursOf(uid).split(",")), faults, calls, view -> {
                    metrics.observe(view);
                    published.publish(view.annotation(clock.instant()));
                }));
    }

    private static void publishQuietly(InventoryPublisher p, HealthState h) {
        try { p.publish(h); } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) return;
            LOG.log(Level.WARNING, "publishing the GPU inventory failed: " + e.getMessage(), e);
        }
    }

    public HealthMonitor health() { return health; }

    /** Null while all is well; otherwise why this agent should not be considered ready (for /healthz). */
    public String problem() {
        if (!pods.synced()) return "pods of this node not listed yet";
        if (memEndpoint.registrations() == 0) return "not registered with kubelet yet (" + memEndpoint.socket() + ")";
        return null;
    }

    /** The MPS generation new containers are sent to, as the Node says now. */
    public String activeColour() { return nodeView.activeColour(); }

    public NodePodCache pods() { return pods; }

    /** This node's pods' bookings, read once per event and checked against each pod's own resources. */
    public NodeBookings bookings() { return bookings; }

    /** Annotations the node did not count, by reason (the {@code mpshare_node_bookings_refused_total} counter). */
    public BookingRefusals refusals() { return refusals; }

    /** Layer 2: the server ceilings the bookings ask for. */
    public CeilingController ceilings() { return ceilings; }

    /** The node's side of Allocate: waiting pods, what was answered, bookings as last seen. */
    public AllocationBook allocations() { return book; }

    public Reconciler reconciler() { return reconciler; }

    /** The fault domains of this node's pods. */
    public DomainController domains() { return domains; }

    /** The policer, or empty when it is off ({@code --police=false}). */
    public Optional<NodePolicer> policer() { return Optional.ofNullable(policer); }

    /** The agent's metrics (the policer's), for {@code /metrics} on {@link NodeHttp}. */
    public PrometheusRegistry metrics() { return registry; }

    public PluginEndpoint memoryEndpoint() { return memEndpoint; }

    public PluginEndpoint coreEndpoint() { return coreEndpoint; }

    @Override public void close() {
        if (policer != null) policer.close();
        domains.close();
        exec.shutdownNow();
        slow.shutdownNow();
        calls.shutdownNow();
        api.shutdownNow();
        kinds.close();
        memEndpoint.close();
        coreEndpoint.close();
        podResources.close();
        pods.close();
        nodeView.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        claim.close();
    }
}
