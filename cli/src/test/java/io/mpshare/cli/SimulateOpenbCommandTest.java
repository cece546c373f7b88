package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

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
}
