package io.mpshare.e2e.k8s;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** CPU time and resident memory of processes, read from {@code /proc} (Linux; empty elsewhere). */
public final class ProcessStats {
    private ProcessStats() {}

    /** CPU seconds (user + system) process {@code pid} has used, from {@code /proc/PID/stat}. */
    public static Optional<Double> cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from 3 (state) on
            return Optional.of((Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0); // utime, stime in clock ticks (USER_HZ 100)
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Resident memory of {@code pid} in MiB ({@code VmRSS} of {@code /proc/PID/status}). */
    public static Optional<Long> rssMib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status")))
                if (line.startsWith("VmRSS:")) return Optional.of(Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024);
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** CPU seconds of each live process of {@code cp} by name, and of this JVM as {@code self}. */
    public static Map<String, Double> cpuSeconds(ControlPlane cp, String self) {
        Map<String, Double> out = new TreeMap<>();
        for (ManagedProcess p : cp.processes()) if (p.alive()) cpuSeconds(p.pid()).ifPresent(t -> out.put(p.name(), t));
        cpuSeconds(ProcessHandle.current().pid()).ifPresent(t -> out.put(self, t));
        return out;
    }

    /** The load average over the last minute, five and fifteen minutes, as {@code /proc/loadavg} gives it ("" elsewhere). */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
