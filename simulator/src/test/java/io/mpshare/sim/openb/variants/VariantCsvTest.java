package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VariantCsvTest {
    @Test
    void write_generatedGpuspecVariant_readsBackAsTheSameTasks() throws Exception {
        var tasks = TraceVariants.generate(TraceVariantsTest.base(), TraceVariantsTest.nodes(), Variant.parse("gpuspec33"), 5);
        assertTrue(tasks.stream().anyMatch(t -> t.gpuSpec().size() > 1), "the sample should hold a multi-model spec");
        var w = new StringWriter();
        VariantCsv.write(tasks, w);
        assertEquals(tasks, OpenbTrace.readTasks(new StringReader(w.toString()), "gen.csv"));
    }

    @Test
    void run_writesTheVariantOfTheSeed(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("nodes.csv"), base = dir.resolve("base.csv"), out = dir.resolve("out.csv");
        Files.writeString(nodes, "sn,cpu_milli,memory_mib,gpu,model\n"
                + String.join("\n", TraceVariantsTest.nodes().stream().map(n -> n.name() + "," + n.cpuMilli() + "," + n.memoryMib() + "," + n.gpus() + "," + n.model()).toList()) + "\n");
        try (Writer w = Files.newBufferedWriter(base)) { VariantCsv.write(TraceVariantsTest.base(), w); }
        VariantCsv.run(new String[] {"--nodes", nodes.toString(), "--base", base.toString(), "--variant", "gpushare60", "--seed", "3", "--out", out.toString()});
        var expected = TraceVariants.generate(OpenbTrace.readTasks(base), OpenbTrace.readNodes(nodes), Variant.parse("gpushare60"), 3);
        assertEquals(expected, OpenbTrace.readTasks(out));
        assertFalse(expected.equals(TraceVariantsTest.base()));
    }

    @Test
    void run_badOptions_oneLineThatSaysWhatToChange() {
        assertEquals("--variant is required (e.g. --variant gpuspec33)",
                assertThrows(IllegalArgumentException.class, () -> VariantCsv.run(new String[] {"--nodes", "n", "--base", "b", "--out", "o"})).getMessage());
        assertEquals("--seed takes a whole number, got 'x'", assertThrows(IllegalArgumentException.class,
                () -> VariantCsv.run(new String[] {"--nodes", "n", "--base", "b", "--variant", "gpuspec10", "--out", "o", "--seed", "x"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> VariantCsv.run(new String[] {"--share", "0.3"}))
                .getMessage().startsWith("unknown option --share"));
    }
}
