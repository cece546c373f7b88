package io.mpshare.upgrade.plan;

import java.time.Duration;
import java.time.Instant;

/**
 * How one run behaves.
 *
 * @param deadline when this run stops waiting ({@code --max-wait} after it started): the old colour's clients,
 *                 a daemon that is not Ready; in the drain phase, evictions that PodDisruptionBudgets keep refusing
 * @param drainWait how long the drain phase may take from its start (evictions refused by PodDisruptionBudgets are
 *                 retried until then); a run that resumes a drain also gets until its own deadline
 * @param drain    on expiry evict what is left on the old colour (cordon, Eviction API, uncordon); and where there is no
 *                 idle colour, do the seed's procedure in place
 * @param settle   after the switch, how long the old colour must stay without clients before it is called idle: a pod
 *                 answered by a device plugin that had not yet seen the switch records the old colour a moment later
 */
public record UpgradeOptions(Instant deadline, Duration drainWait, boolean drain, Duration settle) {
    public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(10);

    public UpgradeOptions {
        if (deadline == null || drainWait == null || settle == null || settle.isNegative()) throw new IllegalArgumentException("deadline and a settle time >= 0 needed");
    }
}
