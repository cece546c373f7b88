package io.mpshare.mps;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.mpshare.core.isolation.MpsLimits;

import java.util.regex.Pattern;

/**
 * What the device plugin asks of one domain ({@code PUT /domains/{id}}): the GPU its daemon serves, the kind, the
 * client UID its pods run as (null where admission does not pin one), the server ceiling and the active-thread
 * percentage. The constructor refuses what cannot be applied, with a message that says what to change.
 *
 * @param gpu                    the GPU's UUID ({@code GPU-…}, or a MIG device's {@code MIG-…}): the daemon's {@code CUDA_VISIBLE_DEVICES}
 * @param ceilingMiB             server pinned-memory ceiling on that GPU; the daemon keeps whole GiB, so it is applied rounded up
 * @param activeThreadPercentage the share of the GPU's SMs each server of the domain may use, 1..100 (a ceiling the
 *                               client's own {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} cannot pass)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record DomainSpec(String gpu, DomainKind kind, Integer clientUid, long ceilingMiB, int activeThreadPercentage) {
    private static final Pattern GPU = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,79}");

    public DomainSpec {
        if (gpu == null || !GPU.matcher(gpu).matches())
            throw new IllegalArgumentException("gpu must be the GPU's UUID (e.g. GPU-5f2c…), not '" + gpu + "'");
        if (kind == null) throw new IllegalArgumentException("kind must be tenant, pod or node");
        if (clientUid != null && clientUid < 0) throw new IllegalArgumentException("clientUid must be >= 0 or null, not " + clientUid);
        if (ceilingMiB <= 0) throw new IllegalArgumentException("ceilingMiB must be > 0, not " + ceilingMiB);
        if (activeThreadPercentage < 1 || activeThreadPercentage > 100)
            throw new IllegalArgumentException("activeThreadPercentage must be 1..100, not " + activeThreadPercentage);
    }

    /** The ceiling as the daemon will hold it: whole GiB, rounded up. */
    public long appliedCeilingMiB() { return MpsLimits.ceilingMib(ceilingMiB); }

    /** Same daemon (GPU and kind), maybe other settings: a PUT may change ceiling and share, never what the id was derived from. */
    boolean sameDaemon(DomainSpec other) { return gpu.equals(other.gpu) && kind == other.kind; }
}
