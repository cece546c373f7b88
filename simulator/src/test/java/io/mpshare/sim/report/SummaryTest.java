package io.mpshare.sim.report;

import io.mpshare.core.Names;
import io.mpshare.sim.ClusterShape;
import io.mpshare.sim.Progress;
import io.mpshare.sim.Scenario;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.SimPod;
import io.mpshare.sim.workload.Workload;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SummaryTest {
    private static final ClusterShape ONE_NODE = new ClusterShape(1, 8, ClusterShape.H200_MIB, "NVIDIA H200");
    private static final long RESERVE = Names.DEFAULT_CONTEXT_RESERVE_MIB;

    /** {@code n} pods of {@code gib} GiB on one GPU each, arriving a second apart, all still running when the last arrives. */
    private static Workload same(int n, long gib) {
        List<SimPod> pods = new ArrayList<>();
        for (int i = 0; i < n; i++) pods.add(new SimPod(i, i * 1_000L, 3_600_000L, gib * 1024, 0, 1, "t"));
        return new Workload(n + " x " + gib + " GiB", pods);
    }

    private static Simulation.Result run(ClusterShape cluster, Workload w, List<String> ids) {
        return Simulation.run(new Scenario(cluster, w, 16), Models.of(ids, RESERVE, 8, w), Progress.NONE, 2);
    }

    /**
     * Twelve 30 GiB pods: each charges 31,744 MiB with the reserve, so four fit an H200 (143,771 MiB) and leave
     * 16,795 MiB that no pod of this mix can use. Binpack fills each GPU with four: 3 GPUs. The fragmentation
     * policy stops at three, which leaves room for one more of the mix, and opens a GPU instead: 4 GPUs.
     * Whole GPU: 12. The rows and the headline carry these numbers.
     */
    @Test
    void rows_defaultPolicy_gpusNeededAndSavingsComputedFromTheRun() {
        var r = run(ONE_NODE, same(12, 30), Models.IDS);
        assertThat(r.model(Names.POLICY_BINPACK).gpusNeeded()).isEqualTo(3);
        assertThat(r.model(Models.DEFAULT_ID).gpusNeeded()).isEqualTo(4);
        assertThat(r.model("whole").gpusNeeded()).isEqualTo(12);
        List<List<String>> rows = Summary.rows(r);
        assertThat(rows.getFirst()).startsWith("mpshare fragmentation (default)", "4", "67%");
        assertThat(rows.get(1)).startsWith("mpshare binpack", "3", "75%");
        assertThat(rows.getLast()).startsWith("whole GPU per pod", "12", "-");
        assertThat(Summary.headline(r)).isEqualTo("sharing with mpshare fragmentation (default) needs 4 GPUs where whole-GPU needs 12: saves 67%");
    }

    @Test
    void extenderDefaultLine_namesTheDefaultAndComparesBinpack() {
        var r = run(ONE_NODE, same(12, 30), List.of(Names.POLICY_BINPACK, Names.POLICY_FRAGMENTATION, "whole"));
        assertThat(Summary.extenderDefaultLine(r)).isEqualTo("the scheduler extender runs " + Names.DEFAULT_PLACEMENT_POLICY
                + " by default (mpshare scheduler-extender --policy); on this workload binpack needs 1 fewer GPU (3)");
    }

    @Test
    void extenderDefaultLine_defaultNotRun_saysHowToAddIt() {
        var r = run(ONE_NODE, same(4, 30), List.of(Names.POLICY_BINPACK, "whole"));
        assertThat(Summary.extenderDefaultLine(r)).endsWith("it is not in this run: add " + Names.DEFAULT_PLACEMENT_POLICY + " to --policies");
        assertThat(Summary.headline(r)).startsWith("sharing with mpshare binpack needs 1 GPU where whole-GPU needs 4");
    }

    @Test
    void textAndHtml_defaultRun_showTheDefaultRowAndTheExtenderLine() {
        Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(3, 400, 60));
        var r = run(new ClusterShape(4, 8, ClusterShape.H200_MIB, "NVIDIA H200"), w, Models.IDS);
        var def = r.model(Models.DEFAULT_ID);
        var text = new StringWriter();
        TextReport.write(r, w.description(), new PrintWriter(text));
        assertThat(text.toString()).contains("    " + Summary.extenderDefaultLine(r)).contains(def.model().label())
                .containsPattern("(?m)^mpshare fragmentation \\(default\\) +" + java.util.regex.Pattern.quote(Fmt.count(def.gpusNeeded())) + " ");
        String html = HtmlReport.render(r, w.description(), List.of());
        assertThat(html).contains(Html.esc(Summary.extenderDefaultLine(r))).contains("<td>" + Html.esc(def.model().label()) + "</td><td>"
                + Fmt.count(def.gpusNeeded()) + "</td>");
    }
}
