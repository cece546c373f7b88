package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateOpenbCommandTest {
    @TempDir Path dir;

    Path write(String name, String text) throws Exception { return Files.writeString(dir.resolve(name), text); }

    @Test
    void simulate_traceFormatOpenb_replaysAndWritesTheReport() throws Exception {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,65536,2,T4\nn2,16000,32768,1,G9\n");
        Path pods = write("openb_pod_list_tiny.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,2000,1024,1,500\np2,4000,2048,1,1000\np3,1000,512,0,0\n");
        Path out = dir.resolve("r.html");
        int rc = Main.run("simulate", "--trace-format", "openb", "--nodes", nodes.toString(), "--pods", pods.toString(),
                "--seeds", "1-2", "--threads", "1", "--gpu-mib", "G9=24576", "--out", out.toString());
        assertThat(rc).isZero();
        assertThat(Files.readString(out)).contains("<svg").contains("tiny");
    }

    @Test
    void simulate_badRow_exitsOneWithoutReplaying() throws Exception {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,65536,2,T4\n");
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,2000,1024,1,5000\n");
        Path out = dir.resolve("r.html");
        int rc = Main.run("simulate", "--trace-format", "openb", "--nodes", nodes.toString(), "--pods", pods.toString(), "--out", out.toString());
        assertThat(rc).isEqualTo(1);
        assertThat(out).doesNotExist();
    }

    @Test
    void simulate_unknownGpuModel_isAUsageError() throws Exception {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,65536,2,G2\n");
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,2000,1024,1,500\n");
        assertThat(Main.run("simulate", "--trace-format", "openb", "--nodes", nodes.toString(), "--pods", pods.toString(),
                "--out", dir.resolve("r.html").toString())).isEqualTo(2);
    }

    private final java.io.StringWriter out = new java.io.StringWriter(), err = new java.io.StringWriter();

    private int runCaptured(String... args) {
        var cl = Main.commandLine(args);
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        return cl.execute(Main.commandArgs(args));
    }

    record BadCase(String name, String[] extra, int exit, String message) {
        @Override public String toString() { return name; }
    }

    static java.util.stream.Stream<BadCase> badOptions() {
        return java.util.stream.Stream.of(
                new BadCase("nodes file missing", new String[]{"--nodes", "/no/such/nodes.csv"}, 1,
                        "mpshare simulate: --nodes /no/such/nodes.csv: no such file (the replay's --nodes is a node list CSV such as openb_node_list_gpu_node.csv)"),
                new BadCase("pods given a count", new String[]{"--pods", "5000"}, 1,
                        "mpshare simulate: --pods 5000: no such file (the replay's --pods is a task list CSV such as openb_pod_list_default.csv)"),
                new BadCase("unknown policy", new String[]{"--policies", "bestfit,binpack"}, 2,
                        "mpshare simulate: --policies: unknown policy 'binpack'; choose from "
                                + java.util.Arrays.stream(io.mpshare.sim.openb.Policies.values()).map(p -> p.cliName).toList() + " or all"),
                new BadCase("seeds not numbers", new String[]{"--seeds", "a-b"}, 2,
                        "mpshare simulate: --seeds a-b: write seeds as a range (42-51) or a list (42,43,50)"),
                new BadCase("unknown format", new String[]{"--trace-format", "borg"}, 2,
                        "mpshare simulate: --trace-format borg is not known; the one trace format is openb"));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("badOptions")
    void simulate_badReplayOption_oneLineAndNothingReplayed(BadCase c) throws Exception {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,65536,2,T4\n");
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,2000,1024,1,500\n");
        Path report = dir.resolve("r.html");
        var args = new java.util.ArrayList<>(List.of("simulate", "--trace-format", "openb", "--nodes", nodes.toString(), "--pods", pods.toString(),
                "--threads", "1", "--out", report.toString()));
        for (int i = 0; i < c.extra().length; i += 2) { // replace the option's value, or add it
            int at = args.indexOf(c.extra()[i]);
            if (at >= 0) args.set(at + 1, c.extra()[i + 1]);
            else { args.add(c.extra()[i]); args.add(c.extra()[i + 1]); }
        }
        assertThat(runCaptured(args.toArray(String[]::new))).isEqualTo(c.exit());
        assertThat(err.toString().lines().toList()).containsExactly(c.message());
        assertThat(out.toString()).isEmpty();
        assertThat(report).doesNotExist();
    }
}
