package io.mpshare.mps.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link Processes} from a {@code /proc} tree: {@code <pid>/stat} (state and parent; the command in parentheses may hold
 * spaces and parentheses, so fields are read after the last {@code )}), {@code <pid>/status} ({@code Uid:} real,
 * effective, …), {@code <pid>/cmdline}. Start times come from {@link ProcessHandle} and SIGKILL goes through it, so those
 * two read the live system whatever the root; the rest reads the given root (tests pass fake trees).
 */
public final class ProcProcesses implements Processes {
    private final Path proc;

    public ProcProcesses(Path proc) { this.proc = proc; }

    /** The host's {@code /proc}. */
    public static ProcProcesses system() { return new ProcProcesses(Path.of("/proc")); }

    @Override public boolean alive(long pid) {
        return stat(pid).map(s -> s.state() != 'Z' && s.state() != 'X' && s.state() != 'x').orElse(false);
    }

    @Override public List<Long> liveChildren(long pid) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
            for (Path d : dirs) {
                long child = Long.parseLong(d.getFileName().toString());
                stat(child).filter(s -> s.parent() == pid && s.state() != 'Z' && s.state() != 'X').ifPresent(s -> out.add(child));
            }
        } catch (IOException e) {
            return List.of();
        }
        return List.copyOf(out);
    }

    @Override public Optional<Integer> uid(long pid) {
        try {
            for (String line : Files.readAllLines(proc.resolve(pid + "/status"), StandardCharsets.UTF_8)) {
                if (!line.startsWith("Uid:")) continue;
                String[] f = line.substring(4).strip().split("\\s+");
                return Optional.of(Integer.parseInt(f.length > 1 ? f[1] : f[0]));
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    @Override public Optional<String> command(long pid) {
        try {
            byte[] b = Files.readAllBytes(proc.resolve(pid + "/cmdline"));
            String s = new String(b, StandardCharsets.UTF_8).replace('\0', ' ').strip();
            return s.isEmpty() ? Optional.empty() : Optional.of(s);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override public Optional<Instant> startedAt(long pid) { return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()); }

    @Override public boolean kill(long pid) { return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false); }

    /** State letter and parent PID from {@code <pid>/stat}. */
    record Stat(char state, long parent) {}

    Optional<Stat> stat(long pid) {
        try {
            String s = Files.readString(proc.resolve(pid + "/stat"), StandardCharsets.UTF_8);
            return Optional.ofNullable(parseStat(s));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code 1234 (name with) spaces) S 1 …} → state S, parent 1; null when malformed. */
    static Stat parseStat(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0) return null;
        String[] f = line.substring(close + 1).strip().split("\\s+");
        if (f.length < 2 || f[0].isEmpty()) return null;
        try {
            return new Stat(f[0].charAt(0), Long.parseLong(f[1]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static boolean isPid(String name) {
        if (name.isEmpty() || name.length() > 10) return false;
        for (int i = 0; i < name.length(); i++) if (!Character.isDigit(name.charAt(i))) return false;
        return true;
    }
}
