package io.mpshare.bench.openb;

import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.variants.TraceVariants;
import io.mpshare.sim.openb.variants.Variant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VariantCsvTest {
    @Test
    void run_writesTheVariantOfTheSeed(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("nodes.csv"), base = dir.resolve("base.csv"), out = dir.resolve("out.csv");
        Files.writeString(nodes, "sn,cpu_milli,memory_mib,gpu,model\na,96000,393216,8,G2\nb,104000,524288,2,T4\n");
        List<OpenbTrace.Task> tasks = new ArrayList<>();
        for (int i = 0; i < 40; i++)
            tasks.add(i % 4 == 0 ? new OpenbTrace.Task("w" + i, 8000, 4096, 1, 1000, Set.of()) : new OpenbTrace.Task("s" + i, 4000, 2048, 1, 250, Set.of()));
        try (Writer w = Files.newBufferedWriter(base)) { OpenbTrace.writeTasks(tasks, w); }

        VariantCsv.run(new String[] {"--nodes", nodes.toString(), "--base", base.toString(), "--variant", "gpushare60", "--seed", "3", "--out", out.toString()});

        var expected = TraceVariants.generate(OpenbTrace.readTasks(base), OpenbTrace.readNodes(nodes), Variant.parse("gpushare60"), 3);
        assertEquals(expected, OpenbTrace.readTasks(out));
        assertNotEquals(tasks, expected);
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
