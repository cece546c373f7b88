package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.OpenbTraces;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The generator against the two resampled files Alibaba published: a generated gpushare100 and multigpu50
 * must have the real files' task-shape statistics. Needs the openb CSV files where {@link OpenbTraces} finds them
 * (skipped without them, failed under {@code CI=true}).
 */
class PublishedVariantsTest {
    static Path dir() {
        return OpenbTraces.require("openb_node_list_gpu_node.csv", "openb_pod_list_default.csv", "openb_pod_list_gpushare100.csv",
                "openb_pod_list_multigpu50.csv");
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
