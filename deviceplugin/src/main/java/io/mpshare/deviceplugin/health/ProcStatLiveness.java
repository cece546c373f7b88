package io.mpshare.deviceplugin.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A process is alive when {@code <procRoot>/<pid>/stat} exists and its state is neither {@code Z} (zombie: exited, not
 * yet reaped) nor {@code X} (dead). The state is the first field after the last {@code ')'}: the command name before it
 * may itself hold spaces and parentheses. Needs the host's PID namespace (the chart runs the device plugin with
 * hostPID); a PID this namespace cannot see counts as dead, since unknown must not count as protected.
 */
public final class ProcStatLiveness implements ProcessLiveness {
    private final Path procRoot;

    public ProcStatLiveness(Path procRoot) { this.procRoot = procRoot; }

    public static ProcStatLiveness host() { return new ProcStatLiveness(Path.of("/proc")); }

    @Override public boolean alive(long pid) {
        if (pid <= 0) return false;
        String stat;
        try {
            stat = Files.readString(procRoot.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return false; // gone between the listing and the read (ESRCH), or unreadable: not known to run
        }
        char state = state(stat);
        return state != 'Z' && state != 'X' && state != 'x' && state != '?';
    }

    /** The state letter of a {@code /proc/<pid>/stat} line, {@code '?'} when the line is not one. */
    static char state(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) return '?';
        for (int i = close + 1; i < stat.length(); i++) if (stat.charAt(i) != ' ') return stat.charAt(i);
        return '?';
    }
}
