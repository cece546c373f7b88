package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.mpshare.scheduler.SchedulerExtender;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {
    @TempDir Path dir;
    private final StringWriter out = new StringWriter(), err = new StringWriter();

    private int run(String... args) {
        var cl = new CommandLine(new MpshareCommand()).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--bogus", "--nodes=abc", "--nodes=0", "--policies=binpack,nonsense", "--gpus-per-node=65",
            "--duration=soon", "--unit=TB", "--slices=0", "--reserve-mib=-1", "--rate=0"})
    void simulate_badFlag_usageAndExit2(String flag) {
        assertThat(run("simulate", flag, "--out", dir.resolve("r.html").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("Usage: mpshare simulate");
        assertThat(dir.resolve("r.html")).doesNotExist();
    }

    @Test
    void simulate_podsAndDurationTogether_exit2() {
        assertThat(run("simulate", "--pods", "10", "--duration", "1h")).isEqualTo(2);
        assertThat(err.toString()).contains("mutually exclusive");
    }

    @Test
    void main_badFlag_exit2() {
        assertThat(Main.run("simulate", "--no-such-flag")).isEqualTo(2);
    }

    @Test
    void simulate_smallConfig_printsHeadlineAndWritesSelfContainedReport() throws Exception {
        Path report = dir.resolve("sub/report.html");
        int rc = run("simulate", "--nodes", "4", "--pods", "300", "--rate", "60", "--quiet", "--out", report.toString());
        assertThat(rc).as(err.toString()).isZero();
        assertThat(out.toString()).contains("sharing with mpshare fragmentation (default) needs").contains("where whole-GPU needs").contains("saves")
                .contains("mpshare binpack").contains("mpshare spread").contains("fixed slices (8/GPU)").contains("whole GPU per pod").contains("report: ");
        String html = Files.readString(report);
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg").contains("GPUs in use").contains("Pending time")
                .doesNotContain("<script").doesNotContain("http://cdn").doesNotContain("https://");
    }

    @Test
    void progressPrinter_quietForTheFirstSecond_thenOneLineASecond() {
        long[] now = {0};
        var buf = new StringWriter();
        var p = new SimulateCommand.ProgressPrinter(new PrintWriter(buf), () -> now[0]);
        p.update("binpack", 10, 100);
        now[0] = 500_000_000L;
        p.update("spread", 50, 100);
        assertThat(buf.toString()).isEmpty();
        now[0] = 1_200_000_000L;
        p.update("binpack", 100, 100);
        now[0] = 1_500_000_000L;
        p.update("spread", 60, 100);
        assertThat(buf.toString()).isEqualTo("simulate (1 s): binpack done, spread 50%" + System.lineSeparator());
    }

    @Test
    void simulate_traceWithBadRows_listsEveryBadLineAndExits1() throws Exception {
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, "arrival,duration,gpu-mem,gpu-core,gpu-count\n0,60,7,0,1\n1,-5,7,0,1\n2,60,x,0,1\n");
        assertThat(run("simulate", "--trace", trace.toString(), "--out", dir.resolve("r.html").toString())).isEqualTo(1);
        assertThat(err.toString()).contains("2 bad row(s)").contains("t.csv:line 3: duration is -5").contains("t.csv:line 4: gpu-mem is 'x'");
        assertThat(dir.resolve("r.html")).doesNotExist();
    }

    @Test
    void simulate_goodTrace_runsChosenPolicies() throws Exception {
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, "arrival,duration,gpu-mem,gpu-core,gpu-count\n0,600,7,0,1\n10,600,7,30,1\n20,600,80,,2\n");
        int rc = run("simulate", "--trace", trace.toString(), "--nodes", "2", "--policies", "binpack,whole", "--quiet", "--out", dir.resolve("r.html").toString());
        assertThat(rc).as(err.toString()).isZero();
        assertThat(out.toString()).contains("trace " + trace).contains("needs 2 GPUs where whole-GPU needs 4: saves 50%").doesNotContain("mpshare spread");
    }

    /** The report names the policy the extender's own default picks, and shows that policy's row. */
    @Test
    void simulate_defaultRun_reportNamesTheExtendersDefaultAndItsRow() throws Exception {
        String extenderDefault = SchedulerExtender.policy(SchedulerExtender.DEFAULT_POLICY, false).name();
        Path report = dir.resolve("r.html");
        assertThat(run("simulate", "--nodes", "4", "--pods", "300", "--rate", "60", "--quiet", "--out", report.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("the scheduler extender runs " + extenderDefault + " by default")
                .containsPattern("(?m)^>>> sharing with mpshare " + extenderDefault + " \\(default\\) needs \\d+ GPUs? where whole-GPU needs \\d+: saves \\d+%$")
                .containsPattern("(?m)^mpshare " + extenderDefault + " \\(default\\) +\\d+ +\\d+% ");
        assertThat(Files.readString(report)).contains("the scheduler extender runs " + extenderDefault + " by default")
                .contains("<td>mpshare " + extenderDefault + " (default)</td>");
    }

    @Test
    void simulate_help_showsTheTraceReplayGroupWithEveryReplayOption() {
        assertThat(run("simulate", "--help")).isZero();
        String help = out.toString();
        assertThat(help).contains(ReplayHelpSection.HEADING + ":");
        String replay = help.substring(help.indexOf(ReplayHelpSection.HEADING));
        for (var o : new CommandLine(new SimulateOpenbCommand()).getCommandSpec().options()) {
            if (o.usageHelp() || o.versionHelp()) continue;
            assertThat(replay).as(o.longestName()).contains("      " + o.longestName() + "=");
        }
        for (var p : io.mpshare.sim.openb.Policies.values()) assertThat(replay).contains(p.cliName + ",");
        assertThat(replay.replaceAll("\\s+", " ")).contains("(default: 42-51)").contains("(default: all)").contains("(default: mpshare-openb-report.html)")
                .contains("git clone https://github.com/alibaba/clusterdata");
    }

    /** A replay option or value given without --trace-format openb: one line that says to add it. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--pods=traces/openb_pod_list_default.csv", "--nodes=nodes.csv", "--seeds=42-51", "--gpu-mib=*=32768", "--policies=bestfit"})
    void simulate_replayOptionWithoutTraceFormat_oneLineSaysAddIt(String flag) {
        var cl = Main.commandLine("simulate", flag);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(Main.commandArgs("simulate", flag))).isEqualTo(2);
        assertThat(err.toString().lines()).singleElement().asString().startsWith("mpshare simulate: ").contains("add --trace-format openb");
    }
}
