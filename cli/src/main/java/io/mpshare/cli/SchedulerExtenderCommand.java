package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.scheduler.ExtenderConfig;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.http.HttpOptions;
import io.mpshare.scheduler.http.TlsFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mpshare scheduler-extender}: the kube-scheduler extender (filter, prioritize, bind over HTTP).
 * Runs beside kube-scheduler in its pod; HA follows kube-scheduler's leader election. The flags become one
 * {@link ExtenderConfig}; {@link SchedulerExtender#start} wires and starts the extender, which serves until SIGTERM.
 */
@Command(name = "scheduler-extender", mixinStandardHelpOptions = true,
        description = "kube-scheduler extender: places pods that ask for shared GPUs and books their GPUs.")
public final class SchedulerExtenderCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "" + Names.EXTENDER_PORT, description = "HTTP port (default ${DEFAULT-VALUE})") int port;
    @Option(names = "--policy", defaultValue = SchedulerExtender.DEFAULT_POLICY, description = "GPU placement: fragmentation (least expected GPU fragmentation for the task mix learned from recent pods), binpack (best fit) or spread (default ${DEFAULT-VALUE})") String policy;
    @Option(names = "--uid-rule", negatable = true, defaultValue = "true", fallbackValue = "true", arity = "0..1",
            description = "refuse nodes whose MPS daemon serves another known runAsUser (MPS runs one UID at a time; pods of unknown UID are not judged);"
                    + " on by default, --no-uid-rule or --uid-rule=false turns it off") boolean uidRule;
    @Option(names = "--fault-domain-default", defaultValue = "tenant", paramLabel = "KIND", description = "the MPS fault-domain kind of namespaces without the "
            + Names.LABEL_FAULT_DOMAIN + " label, as the device plugin's --fault-domain-default (give both the same): the UID rule judges only pods of node kind"
            + " (one daemon for the node); tenant and pod kinds share GPUs by room and prefer GPUs their domain already runs on (default ${DEFAULT-VALUE})") String faultDomainDefault;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of " + Names.RESOURCE_GPU_MEM + ": GiB or MiB (default ${DEFAULT-VALUE})") String unit;
    @Option(names = "--context-reserve-mib", defaultValue = "" + Names.DEFAULT_CONTEXT_RESERVE_MIB, description = "CUDA context reserve per container per GPU (default ${DEFAULT-VALUE})") long reserveMib;
    @Option(names = "--assume-ttl", defaultValue = "PT5M", description = "keep an unconfirmed booking this long before it may expire, ISO-8601 (default ${DEFAULT-VALUE})") Duration assumeTtl;
    @Option(names = "--expiry-period", defaultValue = "PT30S", description = "how often unconfirmed bookings are checked (default ${DEFAULT-VALUE})") Duration expiryPeriod;
    /** Deprecated, no effect: accepted so that a command line that still gives it starts, with a warning. */
    @Option(names = "--bind-attempts", hidden = true) Integer bindAttempts;
    @Option(names = "--http-threads", defaultValue = "0", description = "HTTP worker threads; 0 = one per CPU (default ${DEFAULT-VALUE})") int httpThreads;
    @Mixin KubeOptions kube;
    @Option(names = "--sync-timeout", defaultValue = "PT5M", description = "how long to wait for the first list of nodes and pods (default ${DEFAULT-VALUE})") Duration syncTimeout;
    @Option(names = "--hold-ttl", defaultValue = "PT5S", description = "prioritize holds a pod's room on its top node until its bind, at most this long; PT0S turns holds off (default ${DEFAULT-VALUE})") Duration holdTtl;
    @Option(names = "--recheck-nodes", defaultValue = "" + ExtenderConfig.DEFAULT_RECHECK_NODES, description = "before a filter refuses a pod everywhere, re-read the pods of up to this many refused nodes from the API server; 0 = never (default ${DEFAULT-VALUE})") int recheckNodes;
    @Option(names = "--max-request-bytes", defaultValue = "" + HttpOptions.DEFAULT_MAX_REQUEST_BYTES, description = "largest request body read (default ${DEFAULT-VALUE})") long maxRequestBytes;
    @Option(names = "--verbs-from", defaultValue = "loopback", description = "who may call filter/prioritize/bind over plain HTTP: loopback (kube-scheduler in the same pod) or any; with --tls-* a client certificate is required instead (default ${DEFAULT-VALUE})") String verbsFrom;
    @Option(names = "--tls-cert", description = "serve HTTPS with this PEM certificate (chain); needs --tls-key and --tls-client-ca") Path tlsCert;
    @Option(names = "--tls-key", description = "PKCS#8 PEM key of --tls-cert") Path tlsKey;
    @Option(names = "--tls-client-ca", description = "PEM CA that signs kube-scheduler's client certificate (the extender config's tlsConfig); only it is trusted") Path tlsClientCa;
    @Option(names = "--probe-port", defaultValue = "0", description = "a second port, on every interface, serving only healthz, readyz, version and metrics:"
            + " with --verbs-from=loopback the main port listens on 127.0.0.1 alone, so kubelet's probes and the metrics scrape use this one; 0 = none (default ${DEFAULT-VALUE})") int probePort;
    @Option(names = "--requeue-rate", defaultValue = "" + ExtenderConfig.DEFAULT_REQUEUE_RATE, description = "pending pods refused for lack of room are woken (kube-scheduler retries them)"
            + " once room for them appears, at most this many per second across the cluster; 0 = never (default ${DEFAULT-VALUE})") double requeueRate;
    @Option(names = "--shortlist", defaultValue = "" + ExtenderConfig.DEFAULT_SHORTLIST, description = "a filter keeps at most this many nodes, those the placement policy"
            + " ranks best, so kube-scheduler scores only them; 0 = every node that fits (default ${DEFAULT-VALUE})") int shortlist;
    @Option(names = "--pick-in-filter", negatable = true, defaultValue = "true", fallbackValue = "true", arity = "0..1", description = "a GPU pod that states no scheduling preference (no preferred"
            + " node or pod affinity, no ScheduleAnyway topology spread) gets one node from the filter, the placement policy's choice, held for its bind, so"
            + " kube-scheduler skips its scoring and prioritize; --no-pick-in-filter = such pods get the shortlist too (default ${DEFAULT-VALUE})") boolean pickInFilter;
    @Option(names = "--scheduler-name", defaultValue = Names.SCHEDULER_NAME, split = ",", description = "scheduler profile(s) whose pods bind accepts; '*' accepts any (default ${DEFAULT-VALUE})") List<String> schedulerNames;

    @Override public Integer call() throws Exception {
        for (String w : warnings()) System.err.println(w);
        var done = new CountDownLatch(1);
        try (KubernetesClient client = KubeConnector.system().connect(kube);
             var extender = SchedulerExtender.start(config(), client)) {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(done::countDown));
            done.await();
        }
        return 0;
    }

    /** One line for each deprecated flag given. */
    List<String> warnings() {
        return bindAttempts == null ? List.of() : List.of("mpshare scheduler-extender: --bind-attempts is deprecated and has no effect"
                + " (the allocation travels in the Binding, which has nothing to retry on): drop it");
    }

    /** The flags as the extender's one config record. */
    ExtenderConfig config() {
        int threads = httpThreads > 0 ? httpThreads : Runtime.getRuntime().availableProcessors();
        return new ExtenderConfig(port, MemoryUnit.parse(unit), reserveMib, policy, uidRule, assumeTtl, expiryPeriod, threads)
                .withGuards(holdTtl, recheckNodes, httpOptions(), schedulerNames.contains("*") ? Set.of() : Set.copyOf(schedulerNames))
                .withStart(syncTimeout, version())
                .withProbesAndRequeue(probePort, requeueRate)
                .withShortlist(shortlist)
                .withPickInFilter(pickInFilter)
                .withFaultDomainDefault(faultDomainKind());
    }

    private Kind faultDomainKind() {
        try {
            return Kind.parseOrThrow(faultDomainDefault, "--fault-domain-default");
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }

    private HttpOptions httpOptions() {
        boolean anyTls = tlsCert != null || tlsKey != null || tlsClientCa != null;
        if (anyTls && (tlsCert == null || tlsKey == null || tlsClientCa == null))
            throw new IllegalArgumentException("give --tls-cert, --tls-key and --tls-client-ca together");
        if (!verbsFrom.equals("loopback") && !verbsFrom.equals("any"))
            throw new IllegalArgumentException("--verbs-from is " + verbsFrom + ": use loopback or any");
        return new HttpOptions(maxRequestBytes, !anyTls && verbsFrom.equals("loopback"), anyTls ? new TlsFiles(tlsCert, tlsKey, tlsClientCa) : null);
    }

    private static String version() {
        String v = SchedulerExtenderCommand.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
