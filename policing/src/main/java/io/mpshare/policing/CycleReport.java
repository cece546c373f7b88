package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.ledger.Allocation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one policer cycle saw and did: the snapshot, the view's allocations it was judged against,
 * the findings, the outcomes of the actions taken in this cycle, and per-pod usage. What a harness
 * (e2e/gpu) asserts on, and what the metrics collector renders.
 */
public record CycleReport(Snapshot snapshot, Map<String, Allocation> allocations, List<Finding> findings,
                          List<Outcome> outcomes, Map<String, UsageCodec.PodUsage> usage) {
    public CycleReport {
        Objects.requireNonNull(snapshot, "snapshot");
        allocations = Map.copyOf(allocations);
        findings = List.copyOf(findings);
        outcomes = List.copyOf(outcomes);
        usage = Map.copyOf(usage);
    }

    /** The outcomes of actions of one kind ("terminate", "kill", "evict", "event"). */
    public List<Outcome> outcomes(String kind) {
        return outcomes.stream().filter(o -> o.action().kind().equals(kind)).toList();
    }
}
