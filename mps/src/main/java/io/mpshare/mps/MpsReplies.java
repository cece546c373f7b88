package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what {@code nvidia-cuda-mps-control} answers (FACTS.md). The client exits 0 even on errors,
 * so errors are recognised by their text: "Cannot find MPS control daemon process" (exit 1),
 * {@code Unknown command "x"}, {@code Server N not found}. Values are plain lines: PIDs, memory
 * sizes like {@code 3G} / {@code 4096M}, percentages like {@code 100.0}.
 */
final class MpsReplies {
    private MpsReplies() {}

    static final String DAEMON_DOWN_TEXT = "Cannot find MPS control daemon process";
    private static final Pattern UNKNOWN = Pattern.compile("Unknown command.*", Pattern.CASE_INSENSITIVE);
    private static final Pattern SERVER_NOT_FOUND = Pattern.compile("Server\\s+\\d+\\s+not found.*", Pattern.CASE_INSENSITIVE);
    private static final Pattern MEMORY = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)B?", Pattern.CASE_INSENSITIVE);

    /** Throws the typed error the output shows, if any. */
    static void check(String command, int exitCode, String output) {
        String out = output.strip();
        if (out.contains(DAEMON_DOWN_TEXT)) {
            throw new MpsException(Reason.DAEMON_DOWN, "'" + command + "': no MPS control daemon answers (" + DAEMON_DOWN_TEXT + ")");
        }
        for (String line : out.lines().map(String::strip).toList()) {
            if (UNKNOWN.matcher(line).matches()) {
                throw new MpsException(Reason.UNKNOWN_COMMAND, "'" + command + "': the control daemon answered: " + line);
            }
            if (SERVER_NOT_FOUND.matcher(line).matches()) {
                throw new MpsException(Reason.SERVER_NOT_FOUND, "'" + command + "': the control daemon answered: " + line);
            }
        }
        if (exitCode != 0) {
            throw new MpsException(Reason.OTHER, "'" + command + "' exited with " + exitCode + (out.isEmpty() ? "" : ": " + out));
        }
    }

    /** One PID per line; an empty answer is an empty list. */
    static List<Long> pids(String command, String output) {
        List<Long> out = new ArrayList<>();
        for (String line : output.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            try {
                out.add(Long.parseLong(line));
            } catch (NumberFormatException e) {
                throw unexpected(command, output, "a PID per line");
            }
        }
        return List.copyOf(out);
    }

    /** A memory size in MiB: {@code 3G} → 3072, {@code 4096M} → 4096; 0 or an empty answer → -1 (no limit). A bare number is bytes. */
    static long memoryMib(String command, String output) {
        String text = output.strip();
        if (text.isEmpty()) return -1;
        Matcher m = MEMORY.matcher(text);
        if (!m.matches()) throw unexpected(command, output, "a size like 3G or 4096M");
        double value = Double.parseDouble(m.group(1));
        double mib = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "T" -> value * 1024 * 1024;
            case "G" -> value * 1024;
            case "M" -> value;
            case "K" -> value / 1024;
            default -> value / (1024 * 1024);
        };
        return mib == 0 ? -1 : Math.round(mib);
    }

    /** A percentage like {@code 100.0}. */
    static double percentage(String command, String output) {
        try {
            return Double.parseDouble(output.strip());
        } catch (NumberFormatException e) {
            throw unexpected(command, output, "a percentage like 100.0");
        }
    }

    /** How mpshare writes a memory value to the daemon: whole MiB, so it reads back exactly. */
    static String memoryArg(long mib) {
        if (mib <= 0) throw new IllegalArgumentException("a pinned memory limit must be positive MiB, not " + mib);
        return mib + "M";
    }

    private static MpsException unexpected(String command, String output, String expected) {
        return new MpsException(Reason.UNEXPECTED_REPLY, "'" + command + "': expected " + expected + ", got: " + output.strip());
    }
}
