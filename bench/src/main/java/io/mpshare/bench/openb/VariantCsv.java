package io.mpshare.bench.openb;

import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.variants.TraceVariants;
import io.mpshare.sim.openb.variants.Variant;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Research entry point: writes one generated family member as an openb task file, so it can be replayed like a
 * published one ({@code mpshare simulate --trace-format openb --pods FILE}): {@code java -cp ...
 * io.mpshare.bench.openb.VariantCsv --nodes N.csv --base openb_pod_list_default.csv --variant gpuspec33
 * [--seed 1] --out openb_pod_list_gpuspec33.csv}. The tasks are {@link TraceVariants#generate}'s, in its order.
 */
public final class VariantCsv {
    private VariantCsv() {}

    public static void main(String[] args) throws IOException {
        try {
            run(args);
        } catch (IllegalArgumentException e) { // bad options or a bad trace row: one line
            System.err.println("variant-csv: " + e.getMessage());
            System.exit(2);
        } catch (NoSuchFileException e) {
            System.err.println("variant-csv: no such file: " + e.getFile() + "; give the openb CSV files with --nodes and --base");
            System.exit(2);
        }
    }

    static void run(String[] args) throws IOException {
        Map<String, String> o = new HashMap<>(Map.of("--seed", "1"));
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) throw new IllegalArgumentException(args[i] + " needs a value");
            switch (args[i]) {
                case "--nodes", "--base", "--variant", "--seed", "--out" -> o.put(args[i], args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --nodes, --base, --variant, --seed, --out");
            }
        }
        for (String required : List.of("--nodes", "--base", "--variant", "--out"))
            if (!o.containsKey(required)) throw new IllegalArgumentException(required + " is required (e.g. --variant gpuspec33)");
        long seed;
        try {
            seed = Long.parseLong(o.get("--seed"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--seed takes a whole number, got '" + o.get("--seed") + "'");
        }
        List<OpenbTrace.Task> tasks = TraceVariants.generate(OpenbTrace.readTasks(Path.of(o.get("--base"))),
                OpenbTrace.readNodes(Path.of(o.get("--nodes"))), Variant.parse(o.get("--variant")), seed);
        try (Writer w = Files.newBufferedWriter(Path.of(o.get("--out")), StandardCharsets.UTF_8)) { OpenbTrace.writeTasks(tasks, w); }
    }
}
