package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.PodApi;
import io.mpshare.scheduler.bind.BindChecks;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.PendingPods;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.verbs.Verbs;

/** The extender's parts wired as {@code SchedulerExtender} wires them, with the tests' settings: GiB, a 512 MiB reserve. */
public final class Wiring {
    private Wiring() {}

    public static final AskReader ASKS = new AskReader(MemoryUnit.GIB, new DemandResolver(512));

    /** Verbs over {@code engine} without pipelining holds. */
    public static Verbs verbs(PlacementEngine engine) { return verbs(engine, PipelineHolds.off(engine)); }

    public static Verbs verbs(PlacementEngine engine, PipelineHolds holds) { return new Verbs(engine, ASKS, holds); }

    /** A binder on the verbs' engine, holds and ask reader: any scheduler's pods, every pod read from {@code api}. */
    public static Binder binder(Verbs verbs, PodApi api) { return binder(verbs, api, BindChecks.any(), PendingPods.none()); }

    public static Binder binder(Verbs verbs, PodApi api, BindChecks checks, PendingPods pending) {
        return new Binder(verbs.engine(), verbs.holds(), verbs.asks(), api, checks, pending);
    }
}
