package io.mpshare.cli;

import io.mpshare.core.MemoryUnit;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.openb.Policies;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;

/**
 * The value converters of {@code mpshare simulate}. A value that belongs to the openb trace replay (a file for
 * {@code --nodes}/{@code --pods}, {@code MODEL=MIB}, a replay policy) gets a message that says to add
 * {@code --trace-format openb}.
 */
final class SimulateConverters {
    private SimulateConverters() {}

    /** "12h", "90m", "45s", "2d", or plain seconds, to milliseconds. */
    static final class DurationConverter implements ITypeConverter<Long> {
        @Override public Long convert(String v) {
            String t = v.strip().toLowerCase(Locale.ROOT);
            long mult = 1000;
            if (t.endsWith("d")) mult = 86_400_000L;
            else if (t.endsWith("h")) mult = 3_600_000L;
            else if (t.endsWith("m")) mult = 60_000L;
            if (!t.isEmpty() && Character.isLetter(t.charAt(t.length() - 1))) t = t.substring(0, t.length() - 1);
            try {
                double x = Double.parseDouble(t);
                if (!(x > 0) || x * mult > 3.2e11) throw new NumberFormatException();
                return Math.max(1, Math.round(x * mult));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + v + "' is not a duration: use e.g. 12h, 90m, 3600s, 2d (at most 10 years)");
            }
        }
    }

    static final class UnitConverter implements ITypeConverter<MemoryUnit> {
        @Override public MemoryUnit convert(String v) {
            try {
                return MemoryUnit.parse(v);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    static final class PolicyConverter implements ITypeConverter<String> {
        @Override public String convert(String v) {
            String id = v.strip().toLowerCase(Locale.ROOT);
            if (!Models.ALL.contains(id))
                throw new TypeConversionException("unknown policy '" + v + "': use " + String.join(", ", Models.ALL)
                        + (isReplayPolicy(id) ? " ('" + id + "' is a policy of the openb trace replay: add --trace-format openb)" : ""));
            return id;
        }

        private static boolean isReplayPolicy(String id) {
            if (id.equals(SimulateOpenbCommand.ALL_POLICIES)) return true;
            try {
                Policies.byName(id);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
    }

    /** A whole number; a file name instead says that the openb replay takes files, with --trace-format openb. */
    static final class CountConverter implements ITypeConverter<Integer> {
        @Override public Integer convert(String v) {
            try {
                return Integer.valueOf(v.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + v + "' is not a whole number"
                        + (looksLikeFile(v) ? "; to replay an openb trace file, add --trace-format openb (see --help)" : ""));
            }
        }
    }

    /** MiB as a whole number; MODEL=MIB is the openb replay's form. */
    static final class MibConverter implements ITypeConverter<Long> {
        @Override public Long convert(String v) {
            try {
                return Long.valueOf(v.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + v + "' is not a whole number of MiB"
                        + (v.contains("=") ? "; MODEL=MIB is the openb trace replay's form: add --trace-format openb (see --help)" : ""));
            }
        }
    }

    static boolean looksLikeFile(String v) {
        return v.contains("/") || v.toLowerCase(Locale.ROOT).endsWith(".csv");
    }
}
