package io.mpshare.sim.workload;

import io.mpshare.core.MemoryUnit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a workload trace: CSV with the header {@code arrival,duration,gpu-mem,gpu-core,gpu-count}.
 *
 * <ul>
 * <li>{@code arrival}: seconds since the start (decimal, &gt;= 0; rows need not be sorted);</li>
 * <li>{@code duration}: seconds the pod runs once placed (decimal, &gt; 0);</li>
 * <li>{@code gpu-mem}: whole number in the device unit (GiB by default, MiB with {@link MemoryUnit#MIB}),
 *     over all the pod's GPUs, &gt; 0;</li>
 * <li>{@code gpu-core}: whole percent 0-100, empty for 0;</li>
 * <li>{@code gpu-count}: whole number &gt;= 1, empty for 1.</li>
 * </ul>
 * Blank lines and lines starting with {@code #} are skipped. Every bad row is collected with its line
 * number and what is wrong; {@link #read} throws one {@link TraceException} listing them all.
 */
public final class TraceReader {
    public static final String HEADER = "arrival,duration,gpu-mem,gpu-core,gpu-count";
    private static final long MAX_SECONDS = 10L * 365 * 24 * 3600;

    private final MemoryUnit unit;

    public TraceReader(MemoryUnit unit) { this.unit = unit; }

    public Workload read(String source, Reader in) throws IOException, TraceException {
        List<TraceError> errors = new ArrayList<>();
        List<SimPod> pods = new ArrayList<>();
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        String line;
        int no = 0;
        boolean header = false;
        while ((line = r.readLine()) != null) {
            no++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) continue;
            if (!header) {
                String h = t.replace(" ", "").toLowerCase(Locale.ROOT);
                if (!h.equals(HEADER)) errors.add(new TraceError(no, "header is '" + t + "': it must be '" + HEADER + "'"));
                header = true;
                continue;
            }
            parseRow(no, t, pods.size(), pods, errors);
        }
        if (!header) errors.add(new TraceError(Math.max(no, 1), "no header: the first line must be '" + HEADER + "'"));
        if (errors.isEmpty() && pods.isEmpty()) errors.add(new TraceError(no, "no pods: the trace has a header but no rows"));
        if (!errors.isEmpty()) throw new TraceException(source, errors);
        return new Workload("trace " + source + " (" + pods.size() + " pods)", pods);
    }

    private void parseRow(int no, String line, int id, List<SimPod> pods, List<TraceError> errors) {
        String[] f = line.split(",", -1);
        if (f.length != 5) {
            errors.add(new TraceError(no, "has " + f.length + " field(s): expected 5 (" + HEADER + ")"));
            return;
        }
        List<String> wrong = new ArrayList<>();
        long arrival = seconds("arrival", f[0], true, wrong);
        long duration = seconds("duration", f[1], false, wrong);
        long mem = whole("gpu-mem", f[2], 1, Long.MAX_VALUE / unit.mibPerUnit(), null, wrong);
        long core = whole("gpu-core", f[3], 0, 100, 0L, wrong);
        long count = whole("gpu-count", f[4], 1, 64, 1L, wrong);
        if (!wrong.isEmpty()) {
            errors.add(new TraceError(no, String.join("; ", wrong)));
            return;
        }
        pods.add(new SimPod(id, arrival, duration, unit.toMib(mem), (int) core, (int) count, "trace"));
    }

    /** Seconds (decimal) to milliseconds, or -1 with a message added to {@code wrong}. */
    private static long seconds(String what, String text, boolean zeroOk, List<String> wrong) {
        String t = text.strip();
        if (t.isEmpty()) { wrong.add(what + " is empty: give seconds, e.g. 12.5"); return -1; }
        BigDecimal v;
        try {
            v = new BigDecimal(t);
        } catch (NumberFormatException e) {
            wrong.add(what + " is '" + t + "': not a number of seconds");
            return -1;
        }
        if (v.signum() < 0 || (!zeroOk && v.signum() == 0)) {
            wrong.add(what + " is " + t + ": it must be " + (zeroOk ? ">= 0" : "> 0") + " seconds");
            return -1;
        }
        if (v.compareTo(BigDecimal.valueOf(MAX_SECONDS)) > 0) {
            wrong.add(what + " is " + t + " s: more than ten years");
            return -1;
        }
        long ms = v.movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
        if (!zeroOk && ms == 0) { wrong.add(what + " is " + t + " s: shorter than a millisecond"); return -1; }
        return ms;
    }

    private long whole(String what, String text, long min, long max, Long ifEmpty, List<String> wrong) {
        String t = text.strip();
        if (t.isEmpty()) {
            if (ifEmpty != null) return ifEmpty;
            wrong.add(what + " is empty: give a whole number" + (what.equals("gpu-mem") ? " of " + unit.symbol() : ""));
            return -1;
        }
        long v;
        try {
            v = Long.parseLong(t);
        } catch (NumberFormatException e) {
            wrong.add(what + " is '" + t + "': not a whole number" + (what.equals("gpu-mem") && unit == MemoryUnit.GIB
                    ? " (extended resources are whole numbers; for fractions of a GiB use --unit MiB)" : ""));
            return -1;
        }
        if (v < min || v > max) {
            wrong.add(what + " is " + v + ": it must be " + (max == Long.MAX_VALUE / unit.mibPerUnit() ? ">= " + min : min + "-" + max));
            return -1;
        }
        return v;
    }
}
