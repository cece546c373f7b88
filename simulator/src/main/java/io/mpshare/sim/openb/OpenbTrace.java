package io.mpshare.sim.openb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the "openb" CSV files Alibaba published with cluster-trace-gpu-v2023: a node list and a task list.
 * Columns are found by header name, so the short task files (multigpu50: five columns) read like the long
 * ones. A bad row is rejected with its file and line number ({@link TraceException}). {@link #writeTasks} writes a
 * task list back in the same layout (a generated trace then replays like a published one).
 */
public final class OpenbTrace {
    private OpenbTrace() {}

    /** One node of the trace: CPU in thousandths of a core, memory, and {@code gpus} GPUs of one {@code model}. */
    public record Node(String name, long cpuMilli, long memoryMib, int gpus, String model) {}

    /**
     * One task. {@code numGpu == 0}: CPU only; {@code numGpu == 1 && gpuMilli < 1000}: a share of one GPU;
     * otherwise {@code numGpu} whole GPUs. {@code gpuSpec}: allowed GPU models, empty for any.
     */
    public record Task(String name, long cpuMilli, long memoryMib, int numGpu, int gpuMilli, Set<String> gpuSpec) {
        public Task { gpuSpec = Set.copyOf(gpuSpec); }

        public boolean sharing() { return numGpu == 1 && gpuMilli < 1000; }

        /** Thousandths of one GPU asked on each of its GPUs. */
        public int milliPerGpu() { return numGpu == 0 ? 0 : sharing() ? gpuMilli : 1000; }

        /** GPU share asked in all, in thousandths of a GPU (1000 per whole GPU). */
        public long gpuAsk() { return (long) numGpu * milliPerGpu(); }

        public boolean allows(String model) { return gpuSpec.isEmpty() || gpuSpec.contains(model); }
    }

    /** The tasks in the openb column layout (a spec's models sorted and joined by '|'), in their order. */
    public static void writeTasks(List<Task> tasks, Writer w) throws IOException {
        w.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
        for (Task t : tasks)
            w.write(t.name() + "," + t.cpuMilli() + "," + t.memoryMib() + "," + t.numGpu() + "," + t.gpuMilli() + ","
                    + String.join("|", new TreeSet<>(t.gpuSpec())) + "\n");
    }

    public static List<Node> readNodes(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) { return readNodes(r, file.toString()); }
    }

    public static List<Task> readTasks(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) { return readTasks(r, file.toString()); }
    }

    public static List<Node> readNodes(Reader in, String source) throws IOException {
        Rows rows = new Rows(in, source, List.of("sn", "cpu_milli", "memory_mib", "gpu", "model"));
        List<Node> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String[] f; (f = rows.next()) != null; ) {
            String name = rows.text(f, "sn");
            long cpu = rows.number(f, "cpu_milli", 1, Long.MAX_VALUE);
            long mem = rows.number(f, "memory_mib", 1, Long.MAX_VALUE);
            int gpus = (int) rows.number(f, "gpu", 0, 64);
            String model = rows.optional(f, "model");
            if (gpus > 0 && model.isEmpty()) throw rows.bad("node " + name + " has " + gpus + " GPU(s) but no model");
            if (!names.add(name)) throw rows.bad("node " + name + " is listed twice");
            out.add(new Node(name, cpu, mem, gpus, model));
        }
        if (out.isEmpty()) throw new TraceException(source + ": no nodes");
        return out;
    }

    public static List<Task> readTasks(Reader in, String source) throws IOException {
        Rows rows = new Rows(in, source, List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"));
        List<Task> out = new ArrayList<>();
        for (String[] f; (f = rows.next()) != null; ) {
            String name = rows.text(f, "name");
            long cpu = rows.number(f, "cpu_milli", 0, Long.MAX_VALUE);
            long mem = rows.number(f, "memory_mib", 0, Long.MAX_VALUE);
            int num = (int) rows.number(f, "num_gpu", 0, 64);
            int milli = (int) rows.number(f, "gpu_milli", 0, 1000);
            if (num == 0 && milli != 0) throw rows.bad("task " + name + " asks gpu_milli " + milli + " but num_gpu 0");
            if (num > 0 && milli == 0) throw rows.bad("task " + name + " asks " + num + " GPU(s) but gpu_milli 0");
            if (num > 1 && milli != 1000) throw rows.bad("task " + name + " asks " + num + " GPUs of " + milli + " thousandths; several GPUs must be whole (1000)");
            String spec = rows.optional(f, "gpu_spec");
            Set<String> models = new LinkedHashSet<>();
            if (!spec.isBlank()) for (String m : spec.split("\\|")) if (!m.isBlank()) models.add(m.strip());
            out.add(new Task(name, cpu, mem, num, milli, models));
        }
        if (out.isEmpty()) throw new TraceException(source + ": no tasks");
        return out;
    }

    /** CSV rows of a simple comma-separated file (no quoting in these traces), with the line number of each. */
    private static final class Rows {
        private final BufferedReader in;
        private final String source;
        private final Map<String, Integer> columns = new HashMap<>();
        private int line;

        Rows(Reader r, String source, List<String> required) throws IOException {
            this.in = r instanceof BufferedReader b ? b : new BufferedReader(r);
            this.source = source;
            String header = in.readLine();
            line = 1;
            if (header == null) throw new TraceException(source + ": empty file, expected a header with " + required);
            String[] h = header.strip().split(",", -1);
            for (int i = 0; i < h.length; i++) columns.put(h[i].strip(), i);
            for (String c : required)
                if (!columns.containsKey(c)) throw new TraceException(source + ":1: header lacks column '" + c + "' (has " + Arrays.toString(h) + ")");
        }

        String[] next() throws IOException {
            for (String s; (s = in.readLine()) != null; ) {
                line++;
                if (s.isBlank()) continue;
                return s.split(",", -1);
            }
            return null;
        }

        TraceException bad(String why) { return new TraceException(source + ":" + line + ": " + why); }

        String optional(String[] f, String col) {
            Integer i = columns.get(col);
            return i == null || i >= f.length ? "" : f[i].strip();
        }

        String text(String[] f, String col) {
            String v = optional(f, col);
            if (v.isEmpty()) throw bad("missing " + col);
            return v;
        }

        long number(String[] f, String col, long min, long max) {
            String v = text(f, col);
            long n;
            try { n = Long.parseLong(v); } catch (NumberFormatException e) { throw bad(col + " '" + v + "' is not a whole number"); }
            if (n < min || n > max) throw bad(col + " " + n + " is out of range " + min + ".." + (max == Long.MAX_VALUE ? "" : max));
            return n;
        }
    }

    /** A trace file that cannot be replayed, with where and why. */
    public static final class TraceException extends IllegalArgumentException {
        public TraceException(String message) { super(message); }
    }
}
