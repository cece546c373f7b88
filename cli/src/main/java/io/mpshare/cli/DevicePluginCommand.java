package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.deviceplugin.DevicePluginConfig;
import io.mpshare.deviceplugin.domains.DomainsConfig;
import io.mpshare.deviceplugin.DevicePluginNode;
import io.mpshare.deviceplugin.DevicePluginPreflight;
import io.mpshare.deviceplugin.NodeHttp;
import io.mpshare.deviceplugin.health.DaemonProbe;
import io.mpshare.deviceplugin.health.DaemonProbes;
import io.mpshare.deviceplugin.driver.DeviceListConfig;
import io.mpshare.deviceplugin.driver.DeviceListStrategy;
import io.mpshare.deviceplugin.driver.DriverDiscovery;
import io.mpshare.deviceplugin.driver.DriverRoots;
import io.mpshare.deviceplugin.policing.PolicingConfig;
import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.metrics.PolicerMetrics.PodSeries;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code mpshare device-plugin}: the node agent (DaemonSet). Publishes the GPU inventory, serves the kubelet device
 * plugin API for {@code aliyun.com/gpu-mem} and {@code aliyun.com/gpu-core.percentage}, answers Allocate from the
 * pods' allocation annotations, reports devices Unhealthy while the MPS daemon is down, and polices each pod's GPU
 * memory (docs/policing.md; {@code /metrics} on the metrics port).
 */
@Command(name = "device-plugin", mixinStandardHelpOptions = true,
        description = "Kubelet device plugin for aliyun.com/gpu-mem and aliyun.com/gpu-core.percentage; publishes the node's GPU inventory.")
public final class DevicePluginCommand implements Callable<Integer> {
    @Option(names = "--node-name", defaultValue = "${env:NODE_NAME}", description = "this node (default: $NODE_NAME, from spec.nodeName)") String nodeName;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of aliyun.com/gpu-mem: GiB or MiB (default ${DEFAULT-VALUE})") String unit;
    @Option(names = "--run-dir", defaultValue = "/run/mpshare", description = "host folder of the MPS generations: <colour>/pipe, <colour>/status.json (default ${DEFAULT-VALUE})") Path runDir;
    @Option(names = "--metrics-port", defaultValue = "39996", description = "port of /healthz (and the policer's /metrics); 0: off (default ${DEFAULT-VALUE})") int metricsPort;
    @Option(names = "--plugin-dir", defaultValue = "/var/lib/kubelet/device-plugins", description = "kubelet's device plugin folder (default ${DEFAULT-VALUE})") Path pluginDir;
    @Option(names = "--kubelet-socket", description = "kubelet's registration socket (default <plugin-dir>/kubelet.sock)") Path kubeletSocket;
    @Option(names = "--pod-resources-socket", defaultValue = "/var/lib/kubelet/pod-resources/kubelet.sock", description = "kubelet pod-resources API (default ${DEFAULT-VALUE})") Path podResources;
    @Option(names = "--mount-dev-shm", description = "also mount the host's /dev/shm into GPU containers (older drivers only; driver 580 does not need it)") boolean devShm;
    @Option(names = "--daemon-probe", defaultValue = "supervisor-socket", description = "how the MPS daemon's health is read: supervisor-socket (a heartbeat on <run-dir>/<colour>/supervisor.sock within 1 s, then the daemon PID in /proc, a zombie counting as dead; needs hostPID), "
            + "supervisor-socket-no-pid, status-file (<run-dir>/<colour>/status.json + daemon PID; cannot see a hung supervisor), status-file-no-pid, or none (default ${DEFAULT-VALUE})") String probeKind;
    @Option(names = "--health-period-ms", defaultValue = "500", description = "how often daemon and Xids are polled (default ${DEFAULT-VALUE}; at most 1500)") long healthMs;
    @Option(names = "--police", defaultValue = "true", negatable = true, fallbackValue = "true", description = "run the per-pod GPU memory policer (default ${DEFAULT-VALUE}; --no-police: off)") boolean police;
    @Option(names = "--police-action", defaultValue = "terminate", description = "what the policer does about a pod over its limit or a rogue process: event, terminate or evict (default ${DEFAULT-VALUE})") String policeAction;
    @Option(names = "--police-interval", defaultValue = "1s", description = "the policer's sampling period: 1s, 500ms, PT2S (default ${DEFAULT-VALUE})") String policeInterval;
    @Option(names = "--pod-metrics", description = "serve the per-pod and per-container series on /metrics (namespace, pod, container labels: they name every tenant's pods); only where a NetworkPolicy keeps the metrics port to the scrapers (the chart: networkPolicy.enabled)") boolean podMetrics;
    @Option(names = "--proc-root", defaultValue = "/proc", description = "the host's /proc, where GPU processes are mapped to pods (the DaemonSet runs with hostPID; default ${DEFAULT-VALUE})") Path procRoot;
    @Option(names = "--device-list-strategy", defaultValue = "envvar", paramLabel = "STRATEGY", description = "how a container gets its "
            + "GPUs: envvar (NVIDIA_VISIBLE_DEVICES, for NVIDIA's container runtime), cdi (devices of a CDI spec written to "
            + "--cdi-spec-dir, for containerd 1.7+ and CRI-O with CDI), device-specs (the device nodes and the driver's files, with no "
            + "toolkit and any CRI runtime) (default ${DEFAULT-VALUE}; docs/install.md)") String deviceListStrategy;
    @Option(names = "--driver-root", defaultValue = "/", description = "cdi, device-specs: the driver's root on the host: / for a "
            + "driver installed on the host, the driver container's folder (/run/nvidia/driver) otherwise (default ${DEFAULT-VALUE})") Path driverRoot;
    @Option(names = "--driver-root-mount", description = "where this process sees --driver-root when it runs in a pod (default: --driver-root)") Path driverRootMount;
    @Option(names = "--dev-root", defaultValue = "/", description = "cdi, device-specs: the host folder whose dev/ holds the nvidia* "
            + "device nodes (default ${DEFAULT-VALUE})") Path devRoot;
    @Option(names = "--dev-root-mount", description = "where this process sees --dev-root when it runs in a pod (default: --dev-root)") Path devRootMount;
    @Option(names = "--cdi-spec-dir", defaultValue = "/var/run/cdi", description = "cdi: the folder the node's runtime reads CDI specs "
            + "from (default ${DEFAULT-VALUE})") Path cdiSpecDir;
    @Option(names = "--fake-gpus", paramLabel = "MIB[,MIB...]", description = "run without a GPU: fake GPUs of these sizes in MiB instead of NVML, "
            + "e.g. 12036,16384,81559, or 2x143771 for two H200s (docs/quickstart.md)") String fakeGpus;
    @Option(names = "--fake-gpu-model", defaultValue = "NVIDIA H200", paramLabel = "NAME", description = "with --fake-gpus: the model name the fake GPUs report (default ${DEFAULT-VALUE})") String fakeGpuModel;
    @Option(names = "--fault-domain-default", defaultValue = "tenant", paramLabel = "KIND", description = "the MPS fault-domain kind of namespaces without the "
            + "mpshare.io/fault-domain label: tenant (a daemon per namespace and client UID on a GPU), pod (a daemon per pod) or node (the colour's one "
            + "daemon); give the scheduler extender the same (default ${DEFAULT-VALUE}: docs/device-plugin.md, \"Fault domains\")") String faultDomainDefault;
    @Option(names = "--domain-wait", defaultValue = "5s", paramLabel = "DURATION", description = "how long Allocate waits, off kubelet's event loop, "
            + "for a pod's MPS domain to serve before it refuses the container (0-60 s; default ${DEFAULT-VALUE})") String domainWait;
    @Option(names = "--domain-fault-health", defaultValue = "domain", paramLabel = "domain|gpu", description = "what a faulted MPS domain closes: "
            + "domain (its own new pods are refused at Allocate) or gpu (also its GPU's devices are Unhealthy until it serves again); "
            + "docs/decisions/domain-health.md (default ${DEFAULT-VALUE})") String domainFaultHealth;
    @Option(names = "--suspect-faults", defaultValue = "2", paramLabel = "N", description = "a workload present in N MPS domain faults within "
            + "--suspect-window is a fault suspect: its next pods get a domain of their own (default ${DEFAULT-VALUE})") int suspectFaults;
    @Option(names = "--suspect-window", defaultValue = "10m", paramLabel = "DURATION", description = "see --suspect-faults (default ${DEFAULT-VALUE})") String suspectWindow;
    @Option(names = "--suspect-hold", defaultValue = "1h", paramLabel = "DURATION", description = "how long a workload stays a suspect after its last "
            + "fault (default ${DEFAULT-VALUE})") String suspectHold;
    @Mixin KubeOptions kube;

    /** The flags as the agent's configuration record. */
    DevicePluginConfig config() {
        if (nodeName == null || nodeName.isBlank())
            throw CliFailure.usage("no node name: pass --node-name or set NODE_NAME (fieldRef spec.nodeName)");
        DevicePluginConfig cfg = DevicePluginConfig.defaults(nodeName).withUnit(MemoryUnit.parse(unit))
                .withSockets(pluginDir, kubeletSocket != null ? kubeletSocket : pluginDir.resolve("kubelet.sock"), podResources)
                .withRunDir(runDir, devShm);
        cfg = cfg.withPeriods(Duration.ofMillis(healthMs), cfg.endpointPeriod(), cfg.reconcileDelay());
        cfg = cfg.withPolicing(PolicingConfig.defaults().withEnabled(police).withAction(ActionPolicy.parse(policeAction))
                .withInterval(duration("--police-interval", policeInterval)).withProcRoot(procRoot)
                .withPodSeries(podMetrics ? PodSeries.INCLUDED : PodSeries.LEFT_OUT)).withDeviceList(deviceList());
        try {
            var suspects = new FaultSuspects.Policy(suspectFaults, duration("--suspect-window", suspectWindow), duration("--suspect-hold", suspectHold));
            return cfg.withDomains(DomainsConfig.defaults().withClusterDefault(Kind.parseOrThrow(faultDomainDefault, "--fault-domain-default"))
                    .withSuspects(suspects).withDaemonWait(duration("--domain-wait", domainWait)).withHealth(DomainsConfig.Health.parse(domainFaultHealth)));
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }

    DeviceListConfig deviceList() {
        try {
            return new DeviceListConfig(DeviceListStrategy.parse(deviceListStrategy), new DriverRoots(driverRoot,
                    driverRootMount != null ? driverRootMount : driverRoot, devRoot, devRootMount != null ? devRootMount : devRoot), cdiSpecDir);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }

    @Override public Integer call() throws Exception {
        DevicePluginConfig cfg = config();
        Function<Supplier<String>, DaemonProbe> probe;
        try {
            probe = DaemonProbes.of(probeKind, runDir);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
        FakeGpus fakes = fakeGpus == null ? null : FakeGpus.parse(fakeGpus, fakeGpuModel);
        DevicePluginPreflight.of(pluginDir, metricsPort).check();   // another plugin or the port's holder: refuse before anything
        CountDownLatch closed = new CountDownLatch(1);
        try (KubernetesClient client = KubeConnector.system().connect(kube)) {
            Nvml nvml = openNvml(fakes, cfg.deviceList());
            try (DevicePluginNode node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(nvml, client, probe, cfg.runDir()));
                 NodeHttp http = metricsPort > 0 ? new NodeHttp(new InetSocketAddress(metricsPort), node::problem).metrics(node.metrics()).start() : null) {
                // SIGTERM: the hook lets this thread close the node (its sockets leave kubelet's folder) and waits for it
                CountDownLatch stop = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    stop.countDown();
                    try { closed.await(10, TimeUnit.SECONDS); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
                }, "mpshare-device-plugin-stop"));
                stop.await();
                return ExitCodes.OK;
            } catch (IllegalStateException e) {
                throw CliFailure.failed(e.getMessage());
            } finally {
                nvml.close();
                closed.countDown();
            }
        }
    }

    /** NVML: the fakes, the driver's own under a mounted driver root, or the one the loader finds. */
    private static Nvml openNvml(FakeGpus fakes, DeviceListConfig devices) {
        if (fakes != null) return fakes.nvml();
        try {
            DriverRoots roots = devices.roots();
            if (!roots.seenDriverRoot().equals(roots.hostDriverRoot())) {
                var lib = DriverDiscovery.nvmlLibrary(roots);
                if (lib.isPresent()) return FfmNvml.open(lib.get().toString());
            }
            return FfmNvml.open();
        } catch (NvmlException e) {
            throw CliFailure.failed(e.getMessage() + " To run the node side without a GPU, pass --fake-gpus MIB[,MIB...] (docs/cli.md).");
        }
    }

    /** {@code 1s}, {@code 500ms}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT1S}). */
    static Duration duration(String flag, String v) {
        String t = v == null ? "" : v.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) return Duration.parse(t);
            if (t.endsWith("ms")) return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            if (t.endsWith("s")) return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            if (t.endsWith("m")) return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
            if (t.endsWith("h")) return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
        } catch (RuntimeException e) {
            // fall through
        }
        throw new IllegalArgumentException(flag + " '" + v + "' is not a duration (1s, 500ms, 10m, 1h, PT1S)");
    }
}
