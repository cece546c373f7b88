package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;

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
 * @param bindAttempts  attempts of the annotation PATCH when the pod's resourceVersion moved (409)
 * @param httpThreads   worker threads of the HTTP server; one per CPU measured best (docs/benchmarks.md#extender):
 *                      a filter walks thousands of node snapshots and is memory-bound, more threads thrash the caches
 */
public record ExtenderConfig(int port, MemoryUnit unit, long reserveMib, String policy, boolean uidRule,
                             Duration assumeTtl, Duration expiryPeriod, int bindAttempts, int httpThreads) {
    public ExtenderConfig {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be 0-65535, got " + port);
        Objects.requireNonNull(unit, "unit");
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        Objects.requireNonNull(policy, "policy");
        if (assumeTtl.isNegative()) throw new IllegalArgumentException("assume TTL must be >= 0");
        if (expiryPeriod.isNegative() || expiryPeriod.isZero()) throw new IllegalArgumentException("expiry period must be > 0");
        if (bindAttempts < 1 || bindAttempts > 20) throw new IllegalArgumentException("bind attempts must be 1-20");
        if (httpThreads < 1) throw new IllegalArgumentException("http threads must be >= 1");
    }

    public static ExtenderConfig defaults() {
        return new ExtenderConfig(Names.EXTENDER_PORT, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB, SchedulerExtender.DEFAULT_POLICY, false,
                Duration.ofMinutes(5), Duration.ofSeconds(30), 5, Runtime.getRuntime().availableProcessors());
    }

    public ExtenderConfig withPort(int p) {
        return new ExtenderConfig(p, unit, reserveMib, policy, uidRule, assumeTtl, expiryPeriod, bindAttempts, httpThreads);
    }
}
