package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.scheduler.http.HttpOptions;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the extender, as the command line gives them.
 *
 * @param port          HTTP port (kube-scheduler's {@code urlPrefix} points here)
 * @param unit          unit of {@code aliyun.com/gpu-mem} (GiB unless the cluster counts MiB)
 * @param reserveMib    CUDA context reserve charged per container per GPU
 * @param policy        placement policy name: fragmentation (default), binpack or spread
 * @param uidRule       refuse nodes whose MPS daemon serves another known UID
 * @param assumeTtl     how long an assumed allocation of a pod that is gone or bound elsewhere is kept
 * @param expiryPeriod  how often assumed allocations are checked
 * @param bindAttempts  no longer used (1-20 still accepted): it bounded the annotation PATCH's retries on 409; the
 *                      allocation now travels in the Binding, which has no resourceVersion to conflict on
 * @param httpThreads   worker threads of the HTTP server; one per CPU measured best (docs/benchmarks.md#extender):
 *                      a filter walks thousands of node snapshots and is memory-bound, more threads thrash the caches
 * @param holdTtl       how long prioritize holds a pod's room on its top node for the pod's bind (0: no holds;
 *                      docs/decisions/extender-pipelining.md)
 * @param recheckNodes  how many refused nodes a filter that keeps none re-reads from the API server (0: never)
 * @param http          request body cap and who may call the verbs (loopback only, or TLS with client certificates)
 * @param schedulerNames the scheduler profiles whose pods bind accepts (empty: any)
 */
public record ExtenderConfig(int port, MemoryUnit unit, long reserveMib, String policy, boolean uidRule,
                             Duration assumeTtl, Duration expiryPeriod, int bindAttempts, int httpThreads,
                             Duration holdTtl, int recheckNodes, HttpOptions http, java.util.Set<String> schedulerNames) {
    /** The default hold: far above the milliseconds between prioritize and bind, short enough that an unused hold costs little. */
    public static final Duration DEFAULT_HOLD_TTL = Duration.ofSeconds(5);
    public static final int DEFAULT_RECHECK_NODES = 8;

    public ExtenderConfig(int port, MemoryUnit unit, long reserveMib, String policy, boolean uidRule,
                          Duration assumeTtl, Duration expiryPeriod, int bindAttempts, int httpThreads) {
        this(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, bindAttempts, httpThreads,
                DEFAULT_HOLD_TTL, DEFAULT_RECHECK_NODES, HttpOptions.defaults(), java.util.Set.of());
    }

    public ExtenderConfig {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be 0-65535, got " + port);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        Objects.requireNonNull(policy, "policy");
        if (assumeTtl.isNegative()) throw new IllegalArgumentException("assume TTL must be >= 0");
        if (expiryPeriod.isNegative() || expiryPeriod.isZero()) throw new IllegalArgumentException("expiry period must be > 0");
        if (bindAttempts < 1 || bindAttempts > 20) throw new IllegalArgumentException("bind attempts must be 1-20");
        if (httpThreads < 1) throw new IllegalArgumentException("http threads must be >= 1");
        if (holdTtl.isNegative() || holdTtl.compareTo(Duration.ofMinutes(1)) > 0) throw new IllegalArgumentException("hold TTL must be 0 to 1 minute, got " + holdTtl);
        if (recheckNodes < 0 || recheckNodes > 1000) throw new IllegalArgumentException("recheck nodes must be 0-1000, got " + recheckNodes);
        Objects.requireNonNull(http, "http");
        schedulerNames = java.util.Set.copyOf(schedulerNames);
    }

    public static ExtenderConfig defaults() {
        return new ExtenderConfig(Names.EXTENDER_PORT, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB, SchedulerExtender.DEFAULT_POLICY, true,
                Duration.ofMinutes(5), Duration.ofSeconds(30), 5, Runtime.getRuntime().availableProcessors());
    }

    public ExtenderConfig withPort(int p) {
        return new ExtenderConfig(p, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, bindAttempts, httpThreads, holdTtl, recheckNodes, http, schedulerNames);
    }

    /** The same with the guards of issue 12 set: pipelining hold, stale-room re-reads, HTTP exposure, accepted schedulers. */
    public ExtenderConfig withGuards(Duration hold, int recheck, HttpOptions options, java.util.Set<String> schedulers) {
        return new ExtenderConfig(port, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, bindAttempts, httpThreads, hold, recheck, options, schedulers);
    }
}
