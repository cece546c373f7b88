package io.mpshare.deviceplugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.allocation.AnswerBuilder;
import io.mpshare.deviceplugin.allocation.AnswerLog;
import io.mpshare.deviceplugin.allocation.CoreHandler;
import io.mpshare.deviceplugin.allocation.MemoryHandler;
import io.mpshare.deviceplugin.allocation.Reconciler;
import io.mpshare.deviceplugin.ceiling.CeilingController;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.cluster.NodePodCache;
import io.mpshare.deviceplugin.cluster.NodeView;
import io.mpshare.deviceplugin.cluster.PodAnnotator;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.health.DaemonProbe;
import io.mpshare.deviceplugin.health.HealthMonitor;
import io.mpshare.deviceplugin.kubelet.PluginEndpoint;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient;
import io.mpshare.deviceplugin.kubelet.ResourceServer;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.deviceplugin.policing.NodePolicer;
import io.mpshare.mps.preflight.InstanceLock;
import io.mpshare.nvml.Nvml;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The whole node agent, wired by hand: NVML inventory → Node annotation; health monitor → device lists; two device
 * plugin endpoints registered with kubelet; Allocate over the pod informer; reconcile from pod-resources; the policer
 * ({@link NodePolicer}) over the same informer.
 * {@link #start} is also the entry point for test harnesses (fake kubelet sockets, FakeNvml, a mock API server) and
 * for the GPU suite (real NVML, real daemon probe).
 */
public final class DevicePluginNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DevicePluginNode.class.getName());

    private final ScheduledExecutorService exec;
    private final java.util.concurrent.ExecutorService slow;
    private final EventLoopGroup group;
    private final NodePodCache pods;
    private final NodeView nodeView;
    private final HealthMonitor health;
    private final PluginEndpoint memEndpoint;
    private final PluginEndpoint coreEndpoint;
    private final PodResourcesClient podResources;
    private final AllocationManager manager;
    private final Reconciler reconciler;
    private final NodePolicer policer;
    private final PrometheusRegistry registry;
    /** The plugin folder's lock ({@link DevicePluginPreflight}), held until {@link #close}. */
    private InstanceLock claim;

    private DevicePluginNode(ScheduledExecutorService exec, java.util.concurrent.ExecutorService slow, EventLoopGroup group, NodePodCache pods, NodeView nodeView, HealthMonitor health,
                             PluginEndpoint memEndpoint, PluginEndpoint coreEndpoint, PodResourcesClient podResources,
                             AllocationManager manager, Reconciler reconciler, NodePolicer policer, PrometheusRegistry registry) {
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
        this.manager = manager;
        this.reconciler = reconciler;
    }

    public static DevicePluginNode start(DevicePluginConfig cfg, Nvml nvml, DaemonProbe probe, KubernetesClient client, InstantSource clock)
            throws InterruptedException {
        return start(cfg, nvml, colour -> probe, client, clock, true);
    }

    /**
     * @param probeForColour    builds the daemon probe from the active-colour supplier (production: {@code SupervisorProbe})
     * @param podFieldSelector  false only against API test servers that ignore {@code fieldSelector=spec.nodeName} in watches
     */
    public static DevicePluginNode start(DevicePluginConfig cfg, Nvml nvml, java.util.function.Function<java.util.function.Supplier<String>, DaemonProbe> probeForColour,
                                         KubernetesClient client, InstantSource clock, boolean podFieldSelector) throws InterruptedException {
        return start(cfg, nvml, probeForColour, client, clock, podFieldSelector, NodePolicer.Hooks.production(cfg.runDir()));
    }

    /**
     * @param policing the policer's MPS controls per colour, process killer and metrics registry (tests: FakeMpsControl,
     *                 a recording killer); used only when {@code cfg.policing().enabled()}
     */
    public static DevicePluginNode start(DevicePluginConfig cfg, Nvml nvml, java.util.function.Function<java.util.function.Supplier<String>, DaemonProbe> probeForColour,
                                         KubernetesClient client, InstantSource clock, boolean podFieldSelector, NodePolicer.Hooks policing)
            throws InterruptedException {
        InstanceLock claim = DevicePluginPreflight.of(cfg.pluginDir(), 0).claim();   // refuses before anything changes
        NodeInventory hw = InventoryPublisher.readHardware(nvml, cfg.nodeName());
        if (hw.gpus().isEmpty()) throw new IllegalStateException("NVML lists no GPU on node " + cfg.nodeName() + ": nothing to share");
        var memCheck = DeviceCatalog.memory(hw, cfg.unit(), io.mpshare.deviceplugin.devices.HealthState.healthy());
        DeviceCatalog.checkSize(Names.RESOURCE_GPU_MEM, cfg.unit(), memCheck, cfg.listBudgetBytes());

        ScheduledExecutorService exec = Executors.newScheduledThreadPool(3, r -> {
            Thread t = new Thread(r, "mpshare-device-plugin");
            t.setDaemon(true);
            return t;
        });
        EventLoopGroup group = UnixSockets.newGroup(2);
        var nodeView = new NodeView(client, cfg.nodeName()).start(Duration.ofMinutes(10));
        var monitor = new HealthMonitor(nvml, probeForColour.apply(nodeView::activeColour), clock, cfg.xidHold());
        var publisher = new InventoryPublisher(client, cfg.nodeName(), hw, clock, cfg.inventoryRefresh());
        var pods = new NodePodCache(client, cfg.nodeName(), podFieldSelector);
        var annotator = new PodAnnotator(client, exec);
        var manager = new AllocationManager(cfg.nodeName(), cfg.unit(), hw, nodeView::activeColour,
                new AnswerBuilder(cfg.runDir(), cfg.mountDevShm(), cfg.unit()), annotator, new AnswerLog(), clock,
                new AllocationManager.ChangeWaiter() {
                    @Override public long version() { return pods.version(); }

                    @Override public boolean awaitChange(long seen, Duration timeout) throws InterruptedException { return pods.awaitChange(seen, timeout); }
                }, cfg.informerWait());
        pods.addListener(manager);
        // layer 2: each GPU's server ceiling on both colours' daemons follows the bookings (docs/architecture.md)
        var ceilings = new CeilingController(hw, cfg.unit(), CeilingController.socketTargets(cfg.runDir(), CeilingController.SOCKET_TIMEOUT));
        pods.addListener(ceilings);
        NodePolicer policer = cfg.policing().enabled()
                ? new NodePolicer(cfg.policing(), cfg.nodeName(), hw, cfg.unit(), nvml, client, nodeView::activeColour, policing, clock)
                : null;
        if (policer != null) {
            pods.addListener(policer.listener());
            manager.answerSink(policer.answerSink());
        }
        pods.start(Duration.ofMinutes(10));
        pods.awaitSynced(Duration.ofSeconds(60));

        var podResources = new PodResourcesClient(cfg.podResourcesSocket(), group);
        var reconciler = new Reconciler(() -> podResources.list(Names.RESOURCE_GPU_MEM), manager, annotator, clock, Duration.ofMinutes(10));
        manager.afterAllocate(() -> reconciler.soon(exec, cfg.reconcileDelay()));
        // no waiting pod can own a call: claims wrongly guessed are moved (pod-resources), then the node's pods read directly
        manager.fallback(budget -> {
            try { reconciler.reconcile(); } catch (RuntimeException e) { LOG.fine("reconcile before a direct read failed: " + e.getMessage()); }
            pods.readThrough(budget);
        });

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
        exec.scheduleWithFixedDelay(() -> publishQuietly(publisher, monitor.current()), 60, 60, java.util.concurrent.TimeUnit.SECONDS);
        LOG.info("mpshare device plugin on node " + cfg.nodeName() + ": " + hw.gpus().size() + " GPU(s), gpu-mem in " + cfg.unit().symbol());
        var node = new DevicePluginNode(exec, slow, group, pods, nodeView, monitor, mem, core, podResources, manager, reconciler, policer, policing.registry());
        node.claim = claim;
        return node;
    }

    private static void publishQuietly(InventoryPublisher p, io.mpshare.deviceplugin.devices.HealthState h) {
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

    public AllocationManager allocations() { return manager; }

    public Reconciler reconciler() { return reconciler; }

    /** The policer, or empty when it is off ({@code --police=false}). */
    public Optional<NodePolicer> policer() { return Optional.ofNullable(policer); }

    /** The agent's metrics (the policer's), for {@code /metrics} on {@link NodeHttp}. */
    public PrometheusRegistry metrics() { return registry; }

    public PluginEndpoint memoryEndpoint() { return memEndpoint; }

    public PluginEndpoint coreEndpoint() { return coreEndpoint; }

    @Override public void close() {
        if (policer != null) policer.close();
        exec.shutdownNow();
        slow.shutdownNow();
        memEndpoint.close();
        coreEndpoint.close();
        podResources.close();
        pods.close();
        nodeView.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        claim.close();
    }
}
