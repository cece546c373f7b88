package io.mpshare.sim.openb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenbTraceTest {
    static Path fixture(String name) throws Exception {
        return Path.of(OpenbTraceTest.class.getResource("/openb/" + name).toURI());
    }

    @Test
    void readNodes_parsesEveryColumn() throws Exception {
        var nodes = OpenbTrace.readNodes(fixture("nodes.csv"));
        assertThat(nodes).hasSize(3);
        assertThat(nodes.getFirst()).isEqualTo(new OpenbTrace.Node("n-a", 32000, 131072, 2, "T4"));
        assertThat(nodes.get(2).gpus()).isZero();
    }

    @Test
    void readTasks_longFile_readsSpecsAndKinds() throws Exception {
        var tasks = OpenbTrace.readTasks(fixture("tasks.csv"));
        assertThat(tasks).hasSize(5);
        assertThat(tasks.get(0).sharing()).isTrue();
        assertThat(tasks.get(0).gpuAsk()).isEqualTo(500);
        assertThat(tasks.get(1).gpuSpec()).containsExactly("T4");
        assertThat(tasks.get(2).gpuAsk()).isZero();
        assertThat(tasks.get(3).gpuAsk()).isEqualTo(2000);
        assertThat(tasks.get(3).milliPerGpu()).isEqualTo(1000);
        assertThat(tasks.get(4).gpuSpec()).isEqualTo(Set.of("T4", "P100"));
        assertThat(tasks.get(4).allows("P100")).isTrue();
        assertThat(tasks.get(4).allows("A10")).isFalse();
    }

    @Test
    void readTasks_shortFile_likeMultigpu50() throws Exception {
        var tasks = OpenbTrace.readTasks(fixture("tasks-short.csv"));
        assertThat(tasks).hasSize(2);
        assertThat(tasks.get(1).gpuSpec()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "not a number;        t-x,abc,1,1,500;                 :3: cpu_milli 'abc' is not a whole number",
            "share over 1000;     t-x,1,1,1,1500;                  :3: gpu_milli 1500 is out of range",
            "negative memory;     t-x,1,-5,1,500;                  :3: memory_mib -5 is out of range",
            "missing name;        ,1,1,1,500;                      :3: missing name",
            "short row;           t-x,1,1;                         :3: missing num_gpu",
            "several shares;      t-x,1,1,2,500;                   :3: asks 2 GPUs of 500 thousandths",
            "gpus without share;  t-x,1,1,1,0;                     :3: asks 1 GPU(s) but gpu_milli 0",
            "share without gpus;  t-x,1,1,0,300;                   :3: asks gpu_milli 300 but num_gpu 0",
    })
    void readTasks_badRow_namesItsLine(String name, String row, String message) {
        String csv = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nt-ok,1,1,1,500\n" + row.strip() + "\n";
        assertThatThrownBy(() -> OpenbTrace.readTasks(new StringReader(csv), "pods.csv"))
                .isInstanceOf(OpenbTrace.TraceException.class)
                .hasMessageStartingWith("pods.csv:3: ")
                .hasMessageContaining(message.strip().substring(4));
    }

    @Test
    void readNodes_badRows_nameTheirLine() {
        assertThatThrownBy(() -> OpenbTrace.readNodes(new StringReader("sn,cpu_milli,memory_mib,gpu,model\na,1,1,2,\n"), "n.csv"))
                .hasMessage("n.csv:2: node a has 2 GPU(s) but no model");
        assertThatThrownBy(() -> OpenbTrace.readNodes(new StringReader("sn,cpu_milli,memory_mib,gpu,model\na,1,1,1,T4\n\na,1,1,1,T4\n"), "n.csv"))
                .hasMessage("n.csv:4: node a is listed twice");
        assertThatThrownBy(() -> OpenbTrace.readNodes(new StringReader("sn,cpu,memory_mib,gpu,model\n"), "n.csv"))
                .hasMessageStartingWith("n.csv:1: header lacks column 'cpu_milli'");
    }

    @Test
    void gpuModels_unknownModel_saysHowToSizeIt() {
        assertThatThrownBy(() -> new GpuModels().mib("G2"))
                .hasMessageContaining("GPU model 'G2' has no known memory size; give it with --gpu-mib G2=MIB");
        assertThat(new GpuModels().with("G2=24576").mib("G2")).isEqualTo(24576);
        assertThat(new GpuModels().with("*=32768").mib("G3")).isEqualTo(32768);
        assertThat(new GpuModels().mib("T4")).isEqualTo(15109);
        assertThatThrownBy(() -> new GpuModels().with("G2")).hasMessageContaining("MODEL=MIB");
    }
}
