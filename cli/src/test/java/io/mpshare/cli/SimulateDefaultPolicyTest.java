package io.mpshare.cli;

import io.mpshare.core.Names;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.policy.HostRoom;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.model.MpshareModel;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The default row of {@code mpshare simulate} is the policy the scheduler extender runs by default, with the mix it would learn. */
class SimulateDefaultPolicyTest {
    @Test
    void defaultModel_isTheExtendersDefaultPolicy() {
        var extender = SchedulerExtender.policy(SchedulerExtender.DEFAULT_POLICY, true);
        Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(42, 200, 360));
        var model = Models.of(Models.DEFAULT_ID, Names.DEFAULT_CONTEXT_RESERVE_MIB, Models.DEFAULT_SLICES, w);
        assertThat(extender).isInstanceOf(LearnedFragmentationPolicy.class);
        assertThat(model.id()).isEqualTo(extender.name());
        assertThat(model.extenderDefault()).isTrue();
        assertThat(model.policy()).isInstanceOf(FragmentationPolicy.class);
        assertThat(Models.IDS).as("the default run compares it").contains(extender.name());
    }

    /**
     * The extender learns its mix from the GPU pods it sees (a window of distinct pods, checked every 50, replaced when
     * it moved more than the tolerance); fed the workload's pods (fewer than the window), it holds a mix within the
     * tolerance of the one the simulator builds from the whole workload.
     */
    @Test
    void mix_extenderFedTheWorkloadsPods_learnsTheSimulatorsMix() {
        Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(7, 1_000, 360));
        TaskMix simulator = Models.mix(w, Names.DEFAULT_CONTEXT_RESERVE_MIB);
        var learned = new LearnedFragmentationPolicy(false, new HostRoom(), LearnedFragmentationPolicy.PRIOR,
                LearnedFragmentationPolicy.DEFAULT_WINDOW, LearnedFragmentationPolicy.DEFAULT_REBUILD_EVERY);
        var resolver = new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB);
        int seen = 0;
        for (var p : w.pods()) {
            var info = new PodInfo(PodKey.of("sim", "p" + p.id()), "", List.of(ContainerRequest.app("main", p.memMib(), p.corePercent())),
                    p.gpuCount(), OptionalLong.empty());
            if (resolver.resolve(info) instanceof DemandResolver.Resolution.Resolved r) {
                learned.observe(info.key(), r.demand());
                seen++;
            }
        }
        assertThat(seen % LearnedFragmentationPolicy.DEFAULT_REBUILD_EVERY).as("every pod counted in the last rebuild").isZero();
        assertThat(seen).isLessThanOrEqualTo(LearnedFragmentationPolicy.DEFAULT_WINDOW);
        assertThat(learned.current().mix().distance(simulator)).isLessThanOrEqualTo(LearnedFragmentationPolicy.DEFAULT_TOLERANCE);
        assertThat(learned.current().mix()).isNotSameAs(LearnedFragmentationPolicy.PRIOR);
        assertThat(((MpshareModel) Models.of(Models.DEFAULT_ID, Names.DEFAULT_CONTEXT_RESERVE_MIB, 8, w)).policy())
                .isInstanceOfSatisfying(FragmentationPolicy.class, f -> assertThat(f.mix()).isEqualTo(simulator));
    }
}
