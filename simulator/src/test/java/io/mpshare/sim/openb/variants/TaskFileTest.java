package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A generated family member written as an openb task file reads back as the same tasks ({@link OpenbTrace#writeTasks}). */
class TaskFileTest {
    @Test
    void writeTasks_generatedGpuspecVariant_readsBackAsTheSameTasks() throws Exception {
        var tasks = TraceVariants.generate(TraceVariantsTest.base(), TraceVariantsTest.nodes(), Variant.parse("gpuspec33"), 5);
        assertTrue(tasks.stream().anyMatch(t -> t.gpuSpec().size() > 1), "the sample should hold a multi-model spec");
        var w = new StringWriter();
        OpenbTrace.writeTasks(tasks, w);
        assertEquals(tasks, OpenbTrace.readTasks(new StringReader(w.toString()), "gen.csv"));
    }
}
