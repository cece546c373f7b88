package io.mpshare.mps.preflight;

/**
 * A process that holds something an agent wanted: its PID and a short form of its command line, for a person to read
 * ({@code mpshare device-plugin}, {@code python3 -m http.server}). Never used to decide anything: a process names
 * itself.
 */
public record Holder(long pid, String command) {
    public Holder {
        if (pid <= 0) throw new IllegalArgumentException("pid " + pid);
        command = command == null ? "" : command;
    }

    /** {@code pid 1234 (mpshare device-plugin)}, or {@code pid 1234} when the command line cannot be read. */
    @Override public String toString() {
        return command.isEmpty() ? "pid " + pid : "pid " + pid + " (" + command + ")";
    }
}
