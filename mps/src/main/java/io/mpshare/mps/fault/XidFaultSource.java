package io.mpshare.mps.fault;

import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;

import java.time.InstantSource;
import java.util.List;
import java.util.logging.Logger;

/**
 * NVML's Xid events as a fault detector: each Xid (a client's illegal address is Xid 31) is a hint for its GPU
 * ({@link FaultSignal#forGpu}). It never names a domain: several share a GPU, and the PID the kernel logs with an Xid
 * is a victim, not the culprit (measured). The supervisor process owns this NVML handle; nothing else drains its events.
 */
public final class XidFaultSource implements FaultSource {
    private static final Logger LOG = Logger.getLogger(XidFaultSource.class.getName());
    private final Nvml nvml;
    private final InstantSource clock;
    private boolean warned;

    public XidFaultSource(Nvml nvml, InstantSource clock) {
        this.nvml = nvml;
        this.clock = clock;
    }

    @Override public String name() { return FaultSignal.XID; }

    @Override public List<FaultSignal> poll() {
        try {
            return nvml.drainXids().stream().filter(x -> !x.uuid().isEmpty())
                    .map(x -> FaultSignal.forGpu(name(), clock.instant(), x.uuid(), "Xid " + x.xid() + " on GPU " + x.deviceIndex())).toList();
        } catch (NvmlException e) {
            if (!warned) LOG.warning("Xid events unavailable, faults are detected from the domains' logs only: " + e.getMessage());
            warned = true;
            return List.of();
        }
    }

    @Override public void close() { nvml.close(); }
}
