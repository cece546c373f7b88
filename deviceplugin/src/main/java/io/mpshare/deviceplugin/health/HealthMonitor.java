package io.mpshare.deviceplugin.health;

import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.nvml.Nvml;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Polls the daemon probe and NVML's critical Xids, and publishes a {@link HealthState} to listeners on change.
 *
 * <p>Implementation notes. {@link #tick} is the whole algorithm and is what tests call (with a fake clock); a
 * scheduled executor calls it every {@code period} in production, so detection takes at most one period plus the
 * probe's own timeout (default period 500 ms: ≤ 2 s). A probe that throws means "down": unknown is treated as
 * unprotected. A critical Xid marks its GPU unhealthy for {@code xidHold} after the last one seen; there is no
 * NVML call that says a GPU recovered, so a quiet period is the recovery signal. A GPU that a faulted MPS domain closes
 * (when the agent is told to close GPUs for faults: docs/decisions/domain-health.md) is unhealthy until the domain
 * serves again. Ticks are serialised by the
 * monitor's lock; listeners run on the ticking thread and must not block.
 */
public final class HealthMonitor {
    private static final Logger LOG = Logger.getLogger(HealthMonitor.class.getName());

    private final Nvml nvml;
    private final DaemonProbe probe;
    private final InstantSource clock;
    private final Duration xidHold;
    private final Supplier<Map<Integer, String>> faultedGpus;
    private final Map<Integer, Instant> lastXid = new HashMap<>();
    private final List<Consumer<HealthState>> listeners = new CopyOnWriteArrayList<>();
    private volatile HealthState current = HealthState.healthy();

    public HealthMonitor(Nvml nvml, DaemonProbe probe, InstantSource clock, Duration xidHold) {
        this(nvml, probe, clock, xidHold, Map::of);
    }

    /** @param faultedGpus GPUs whose devices a faulted MPS domain closes now, each with why (empty: domains close none) */
    public HealthMonitor(Nvml nvml, DaemonProbe probe, InstantSource clock, Duration xidHold, Supplier<Map<Integer, String>> faultedGpus) {
        this.nvml = nvml;
        this.probe = probe;
        this.clock = clock;
        this.xidHold = xidHold;
        this.faultedGpus = faultedGpus;
    }

    public HealthState current() { return current; }

    public void addListener(Consumer<HealthState> l) { listeners.add(l); }

    /** Polls once; returns the (possibly unchanged) state. */
    public synchronized HealthState tick() {
        Instant now = clock.instant();
        boolean up;
        String reason = "";
        try {
            up = probe.daemonUp();
            if (!up) reason = "MPS control daemon is down";
        } catch (Exception e) {
            up = false;
            reason = "MPS control daemon probe failed: " + e.getMessage();
        }
        try {
            for (Nvml.XidEvent x : nvml.drainCriticalXids()) {
                lastXid.put(x.deviceIndex(), now);
                LOG.warning("critical Xid " + x.xid() + " on GPU " + x.deviceIndex() + " (" + x.uuid() + "): its devices turn Unhealthy");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading Xid events failed", e);
        }
        lastXid.values().removeIf(t -> !now.isBefore(t.plus(xidHold)));
        if (!lastXid.isEmpty()) reason = (reason.isEmpty() ? "" : reason + "; ") + "critical Xid on GPU " + lastXid.keySet();
        Map<Integer, String> faulted = Map.of();
        try {
            faulted = faultedGpus.get();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading the faulted MPS domains failed", e);
        }
        if (!faulted.isEmpty()) reason = (reason.isEmpty() ? "" : reason + "; ") + String.join("; ", new TreeMap<>(faulted).values());
        HealthState next = new HealthState(up, lastXid.keySet(), faulted.keySet(), reason);
        if (!next.equals(current)) {
            LOG.info("device health: " + (next.reason().isEmpty() ? "healthy" : next.reason()));
            current = next;
            for (var l : listeners) {
                try { l.accept(next); } catch (RuntimeException e) { LOG.log(Level.WARNING, "health listener failed", e); }
            }
        }
        return next;
    }

    /** Ticks every {@code period} on {@code exec}, each run scheduling the next (works with a manual test scheduler). */
    public void start(ScheduledExecutorService exec, Duration period) {
        exec.schedule(() -> loop(exec, period), 0, TimeUnit.MILLISECONDS);
    }

    private void loop(ScheduledExecutorService exec, Duration period) {
        try { tick(); } catch (RuntimeException e) { LOG.log(Level.WARNING, "health tick failed", e); }
        if (!exec.isShutdown()) exec.schedule(() -> loop(exec, period), period.toNanos(), TimeUnit.NANOSECONDS);
    }
}
