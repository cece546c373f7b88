package io.mpshare.scheduler.cycle;

import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;

/**
 * What a pod asks of shared GPUs, read and resolved once per verb call ({@link AskReader}) and handed to everything
 * that call does with it: the filter and its stale-room re-run, the nomination hold, prioritize's hold, the bind.
 */
public sealed interface Ask {
    /** A demand: what the ledger books on each of its GPUs. */
    record Gpu(PodInfo pod, GpuDemand demand) implements Ask {}

    /** The pod asks for no shared GPU: the extender lets it pass untouched. */
    record None(PodInfo pod) implements Ask {}

    /** The request can never be met as written (a bad amount, an uneven split): {@code reason} says what to change. */
    record Bad(String reason) implements Ask {}
}
