package io.mpshare.e2e.node;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What kubelet itself says about the device plugin, from its log at {@code --v=2} (kubelet v1.31.14): each
 * ListAndWatch update is logged as {@code "Processed device updates for resource" resourceName="R" totalCount=N
 * healthyCount=H}, each registration as {@code "Got registration request from device plugin with resource"
 * resourceName="R"}. Reads from a byte offset ({@link #mark}), so a scenario sees only what happened after it acted.
 */
final class KubeletLog {
    private static final Pattern UPDATE = Pattern.compile(
            "\"Processed device updates for resource\" resourceName=\"([^\"]+)\" totalCount=(\\d+) healthyCount=(\\d+)");
    private static final Pattern REGISTRATION = Pattern.compile("\"Got registration request from device plugin with resource\" resourceName=\"([^\"]+)\"");

    private final Path file;

    KubeletLog(Path file) { this.file = file; }

    long mark() {
        return file.toFile().length();
    }

    /** healthyCount of the last update of {@code resource} logged after {@code from}. */
    OptionalInt lastHealthy(String resource, long from) {
        OptionalInt last = OptionalInt.empty();
        Matcher m = UPDATE.matcher(since(from));
        while (m.find()) if (m.group(1).equals(resource)) last = OptionalInt.of(Integer.parseInt(m.group(3)));
        return last;
    }

    /** Registrations of {@code resource} logged after {@code from}. */
    int registrations(String resource, long from) {
        int n = 0;
        Matcher m = REGISTRATION.matcher(since(from));
        while (m.find()) if (m.group(1).equals(resource)) n++;
        return n;
    }

    String since(long from) {
        try (var f = new RandomAccessFile(file.toFile(), "r")) {
            long len = f.length();
            if (from >= len) return "";
            byte[] b = new byte[(int) (len - from)];
            f.seek(from);
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
