package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The generator against the two resampled files Alibaba published: a generated gpushare100 and multigpu50
 * must have the real files' task-shape statistics. Needs the openb CSV files: set MPSHARE_OPENB_DIR to a
 * folder with openb_node_list_gpu_node.csv, openb_pod_list_default.csv, openb_pod_list_gpushare100.csv and
 * openb_pod_list_multigpu50.csv (git clone https://github.com/alibaba/clusterdata, folder
 * cluster-trace-gpu-v2023/csv); without it the project's ../shared/traces/alibaba-gpu-v2023 is tried, else skipped.
 */
class PublishedVariantsTest {
    static Path dir() {
        String env = System.getenv("MPSHARE_OPENB_DIR");
        Path p = env != null && !env.isBlank() ? Path.of(env) : Path.of("..", "..", "shared", "traces", "alibaba-gpu-v2023");
        Assumptions.assumeTrue(Files.isRegularFile(p.resolve("openb_pod_list_gpushare100.csv")),
                "openb traces not found at " + p.toAbsolutePath() + "; set MPSHARE_OPENB_DIR (see the class comment)");
        return p;
    }

    static List<OpenbTrace.Task> read(String name) throws IOException { return OpenbTrace.readTasks(dir().resolve("openb_pod_list_" + name + ".csv")); }

    static List<OpenbTrace.Node> nodes() throws IOException { return OpenbTrace.readNodes(dir().resolve("openb_node_list_gpu_node.csv")); }

    @Test
    void generate_gpushare100_matchesThePublishedFile() throws IOException {
        TaskShapes real = TaskShapes.of(read("gpushare100"));
        for (long seed = 1; seed <= 3; seed++) {
            TaskShapes gen = TaskShapes.of(TraceVariants.generate(read("default"), nodes(), Variant.parse("gpushare100"), seed));
            assertEquals(real.tasks(), gen.tasks());
            assertEquals(real.gpuTasks(), gen.gpuTasks());
            assertEquals(real.cpuOnlyCpu(), gen.cpuOnlyCpu());
            assertEquals(1.0, gen.sharingShare());
            assertEquals(0.0, gen.multiShare());
            assertTrue(real.askDistance(gen) < 0.03, "GPU-ask distribution differs by " + real.askDistance(gen));
            assertEquals(real.sharingAskShare(), gen.sharingAskShare(), 1e-9);
        }
    }

    @Test
    void generate_multigpu50_matchesThePublishedFile() throws IOException {
        TaskShapes real = TaskShapes.of(read("multigpu50"));
        for (long seed = 1; seed <= 3; seed++) {
            TaskShapes gen = TaskShapes.of(TraceVariants.generate(read("default"), nodes(), Variant.parse("multigpu50"), seed));
            assertEquals(real.multiAskShare(), gen.multiAskShare(), 0.005);
            assertEquals(real.gpuTasks(), gen.gpuTasks(), 0.03 * real.gpuTasks());
            assertEquals(real.multiShare(), gen.multiShare(), 0.01);
            assertEquals(real.sharingShare(), gen.sharingShare(), 0.01);
            assertEquals(real.cpuOnlyShare(), gen.cpuOnlyShare(), 0.005);
            assertTrue(real.askDistance(gen) < 0.03, "GPU-ask distribution differs by " + real.askDistance(gen));
        }
    }
}
