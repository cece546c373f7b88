package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.scheduler.http.HttpOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of the extender, as the command line gives them ({@link SchedulerExtender#start}).
 *
 * @param port           HTTP port (kube-scheduler's {@code urlPrefix} points here)
 * @param unit           unit of {@code aliyun.com/gpu-mem} (GiB unless the cluster counts MiB)
 * @param reserveMib     CUDA context reserve charged per container per GPU
 * @param policy         placement policy name: fragmentation (default), binpack or spread
 * @param uidRule        refuse nodes whose MPS daemon serves another known UID
 * @param assumeTtl      how long an assumed allocation of a pod that is gone or bound elsewhere is kept
 * @param expiryPeriod   how often assumed allocations are checked
 * @param httpThreads    worker threads of the HTTP server; one per CPU measured best (docs/benchmarks.md#extender):
 *                       a filter walks thousands of node snapshots and is memory-bound, more threads thrash the caches
 * @param holdTtl        how long prioritize holds a pod's room on its top node for the pod's bind (0: no holds;
 *                       docs/decisions/extender-pipelining.md)
 * @param recheckNodes   how many refused nodes a filter that keeps none re-reads from the API server (0: never)
 * @param http           request body cap and who may call the verbs (loopback only, or TLS with client certificates)
 * @param schedulerNames the scheduler profiles whose pods bind accepts (empty: any)
 * @param syncTimeout    how long {@link SchedulerExtender#start} waits for the informers' first list of nodes and pods
 * @param version        what {@code GET version} answers
 * @param probePort      a second port, on every interface, serving only healthz, readyz, version and metrics (kubelet's
 *                       probes, the metrics scrape) while the main port is on loopback in bundled mode; 0: none
 * @param requeueRate    refused pods woken per second at most, once room for them appears
 *                       (docs/decisions/requeue-refused-pods.md); 0: none are woken
 * @param shortlist      a filter keeps at most this many nodes, those the placement policy ranks best, so that
 *                       kube-scheduler scores and sends to prioritize only them (docs/decisions/filter-shortlist.md);
 *                       0: every node that fits
 * @param pickInFilter   a GPU pod that states no scheduling preference kube-scheduler scores gets one node from the
 *                       filter, the policy's choice, held for its bind: kube-scheduler then skips its scoring and
 *                       prioritize (docs/decisions/pick-in-filter.md); off: such pods get the shortlist too
 * @param faultDomainDefault the MPS fault-domain kind of namespaces without the {@code mpshare.io/fault-domain} label,
 *                       the device plugin's {@code --fault-domain-default} (the chart passes one value to both): which
 *                       pods the UID rule judges and which share a daemon (docs/decisions/domain-aware-placement.md)
 */
public record ExtenderConfig(int port, MemoryUnit unit, long reserveMib, String policy, boolean uidRule,
                             Duration assumeTtl, Duration expiryPeriod, int httpThreads,
                             Duration holdTtl, int recheckNodes, HttpOptions http, Set<String> schedulerNames,
                             Duration syncTimeout, String version, int probePort, double requeueRate, int shortlist,
                             boolean pickInFilter, Kind faultDomainDefault) {
    /** The default hold: far above the milliseconds between prioritize and bind, short enough that an unused hold costs little. */
    public static final Duration DEFAULT_HOLD_TTL = Duration.ofSeconds(5);
    public static final int DEFAULT_RECHECK_NODES = 8;
    public static final Duration DEFAULT_SYNC_TIMEOUT = Duration.ofMinutes(5);
    /** Refused pods woken per second at most: each wake is one PATCH of a pod and one scheduling cycle. */
    public static final double DEFAULT_REQUEUE_RATE = 20;
    /** Nodes a filter keeps at most: a few dozen for kube-scheduler's own scores to choose among (docs/decisions/filter-shortlist.md). */
    public static final int DEFAULT_SHORTLIST = 32;
    /** The most a shortlist may be set to. */
    public static final int MAX_SHORTLIST = 100_000;
    /** The strict default (docs/decisions/fault-domains.md): a daemon per namespace and client UID on each GPU. */
    public static final Kind DEFAULT_FAULT_DOMAIN = Kind.TENANT;

    /** The placement and expiry settings; the guards and the rest as {@link #defaults()} has them, and no shortlist (every node that fits is kept). */
    public ExtenderConfig(int port, MemoryUnit unit, long reserveMib, String policy, boolean uidRule,
                          Duration assumeTtl, Duration expiryPeriod, int httpThreads) {
        this(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads,
                DEFAULT_HOLD_TTL, DEFAULT_RECHECK_NODES, HttpOptions.defaults(), Set.of(), DEFAULT_SYNC_TIMEOUT, "dev", 0, DEFAULT_REQUEUE_RATE, 0,
                false, DEFAULT_FAULT_DOMAIN);
    }

    public ExtenderConfig {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be 0-65535, got " + port);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        Objects.requireNonNull(policy, "policy");
        if (assumeTtl.isNegative()) throw new IllegalArgumentException("assume TTL must be >= 0");
        if (expiryPeriod.isNegative() || expiryPeriod.isZero()) throw new IllegalArgumentException("expiry period must be > 0");
        if (httpThreads < 1) throw new IllegalArgumentException("http threads must be >= 1");
        if (holdTtl.isNegative() || holdTtl.compareTo(Duration.ofMinutes(1)) > 0) throw new IllegalArgumentException("hold TTL must be 0 to 1 minute, got " + holdTtl);
        if (recheckNodes < 0 || recheckNodes > 1000) throw new IllegalArgumentException("recheck nodes must be 0-1000, got " + recheckNodes);
        Objects.requireNonNull(http, "http");
        schedulerNames = Set.copyOf(schedulerNames);
        if (syncTimeout.isNegative() || syncTimeout.isZero()) throw new IllegalArgumentException("sync timeout must be > 0, got " + syncTimeout);
        Objects.requireNonNull(version, "version");
        if (probePort < 0 || probePort > 65535) throw new IllegalArgumentException("probe port must be 0-65535, got " + probePort);
        if (probePort != 0 && probePort == port) throw new IllegalArgumentException("the probe port must differ from the port, both are " + port);
        if (!(requeueRate >= 0) || requeueRate > 10_000) throw new IllegalArgumentException("requeue rate must be 0-10000 pods per second, got " + requeueRate);
        // one node kept makes kube-scheduler skip prioritize: that is pickInFilter, which holds in the filter
        if (shortlist < 0 || shortlist == 1 || shortlist > MAX_SHORTLIST)
            throw new IllegalArgumentException("shortlist must be 0 (every node that fits) or 2 to " + MAX_SHORTLIST + ", got " + shortlist);
        Objects.requireNonNull(faultDomainDefault, "faultDomainDefault");
    }

    public static ExtenderConfig defaults() {
        return new ExtenderConfig(Names.EXTENDER_PORT, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB, SchedulerExtender.DEFAULT_POLICY, true,
                Duration.ofMinutes(5), Duration.ofSeconds(30), Runtime.getRuntime().availableProcessors());
    }

    public ExtenderConfig withPort(int p) {
        return new ExtenderConfig(p, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, syncTimeout, version, probePort, requeueRate, shortlist, pickInFilter, faultDomainDefault);
    }

    /** The same with a probes' port (0: none) and the rate refused pods are woken at (0: never). */
    public ExtenderConfig withProbesAndRequeue(int probes, double rate) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, syncTimeout, version, probes, rate, shortlist, pickInFilter, faultDomainDefault);
    }

    /**
     * The same with the guards set: the pipelining hold, the stale-room re-reads, who may call the verbs and the
     * request cap, and which schedulers' pods bind accepts.
     */
    public ExtenderConfig withGuards(Duration hold, int recheck, HttpOptions options, Set<String> schedulers) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, hold, recheck, options,
                schedulers, syncTimeout, version, probePort, requeueRate, shortlist, pickInFilter, faultDomainDefault);
    }

    /** The same with the fault-domain kind of unlabelled namespaces. */
    public ExtenderConfig withFaultDomainDefault(Kind kind) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, syncTimeout, version, probePort, requeueRate, shortlist, pickInFilter, kind);
    }

    /** The same with how long start waits for the informers, and the version it reports. */
    public ExtenderConfig withStart(Duration sync, String v) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, sync, v, probePort, requeueRate, shortlist, pickInFilter, faultDomainDefault);
    }

    /** The same with the filter's pick for pods without preferences ({@code pickInFilter}). */
    public ExtenderConfig withPickInFilter(boolean pick) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, syncTimeout, version, probePort, requeueRate, shortlist, pick, faultDomainDefault);
    }

    /** The same with the filter's shortlist (0: every node that fits). */
    public ExtenderConfig withShortlist(int n) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, httpThreads, holdTtl, recheckNodes, http,
                schedulerNames, syncTimeout, version, probePort, requeueRate, n, pickInFilter, faultDomainDefault);
    }
}
