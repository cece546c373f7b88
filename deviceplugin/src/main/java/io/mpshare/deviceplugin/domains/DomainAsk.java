package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;

import java.util.Objects;

/**
 * What the node asks of one domain's daemon: the GPU it serves (its UUID, the daemon's {@code CUDA_VISIBLE_DEVICES}),
 * the kind, the client UID its pods run as (null when not known), its server ceiling and active-thread percentage
 * ({@code core.isolation.MpsLimits} over the domain's own pods).
 */
public record DomainAsk(String gpu, Kind kind, Integer clientUid, long ceilingMib, int threadPercent) {
    public DomainAsk {
        Objects.requireNonNull(gpu, "gpu");
        Objects.requireNonNull(kind, "kind");
        if (ceilingMib <= 0) throw new IllegalArgumentException("a ceiling must be > 0 MiB, got " + ceilingMib);
        if (threadPercent < 1 || threadPercent > 100) throw new IllegalArgumentException("a thread share must be 1-100, got " + threadPercent);
    }
}
