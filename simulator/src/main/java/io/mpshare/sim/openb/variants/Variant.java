package io.mpshare.sim.openb.variants;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One trace family member, named like the paper's files: {@code gpushare40}, {@code multigpu30},
 * {@code gpuspec25}, {@code cpu200}. {@link TraceVariants#generate} builds it from the default trace.
 *
 * @param family  which aspect of the default trace is changed
 * @param percent the family's level (what the name's number says, see {@link Family})
 */
public record Variant(Family family, int percent) {
    /** The four families of the paper's evaluation (Weng et al., ATC'23, section 6) and what their number means. */
    public enum Family {
        /** Sharing tasks ask {@code percent}% of the GPU tasks' GPU share; the number of GPU tasks is kept. */
        GPUSHARE("gpushare", 0, 100),
        /** Multi-GPU tasks ask {@code percent}% of the GPU share; multi-GPU tasks are added to the default trace. */
        MULTIGPU("multigpu", 1, 99),
        /** {@code percent}% of the GPU tasks allow only some GPU models. */
        GPUSPEC("gpuspec", 0, 100),
        /** CPU-only tasks ask {@code percent}% of {@link TraceVariants#CPU_REFERENCE_MILLI}; GPU tasks kept. */
        CPU("cpu", 0, 1000);

        public final String prefix;
        final int min, max;

        Family(String prefix, int min, int max) { this.prefix = prefix; this.min = min; this.max = max; }
    }

    private static final Pattern NAME = Pattern.compile("(gpushare|multigpu|gpuspec|cpu)(\\d{1,4})");

    public Variant {
        if (family == null) throw new IllegalArgumentException("family is required");
        if (percent < family.min || percent > family.max)
            throw new IllegalArgumentException(family.prefix + " takes a percentage " + family.min + "-" + family.max + ", got " + percent);
    }

    /** {@code gpushare40} → (GPUSHARE, 40); {@code cpu050} → (CPU, 50). */
    public static Variant parse(String name) {
        Matcher m = NAME.matcher(name.strip().toLowerCase(Locale.ROOT));
        if (!m.matches())
            throw new IllegalArgumentException("unknown trace variant '" + name + "'; write gpushareN, multigpuN, gpuspecN or cpuNNN (e.g. gpushare40, cpu050)");
        Family f = switch (m.group(1)) {
            case "gpushare" -> Family.GPUSHARE;
            case "multigpu" -> Family.MULTIGPU;
            case "gpuspec" -> Family.GPUSPEC;
            default -> Family.CPU;
        };
        return new Variant(f, Integer.parseInt(m.group(2)));
    }

    /** The paper's file name stem: cpu percentages have three digits (cpu050), the others none padded. */
    public String name() {
        return family.prefix + (family == Family.CPU ? String.format(Locale.ROOT, "%03d", percent) : Integer.toString(percent));
    }

    /** The generated members of the paper's table (with the published default, gpushare100 and multigpu50: 18 traces). */
    public static final List<String> PAPER_TABLE = List.of(
            "gpushare20", "gpushare40", "gpushare60", "gpushare80", "multigpu20", "multigpu30", "multigpu40",
            "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33", "cpu050", "cpu100", "cpu200", "cpu250");
}
