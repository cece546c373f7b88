package io.mpshare.deviceplugin.health;

import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.Supplier;

/** The daemon probes {@code --daemon-probe} names, each built from the active-colour supplier. */
public final class DaemonProbes {
    private DaemonProbes() {}

    public static final String KINDS = "supervisor-socket, supervisor-socket-no-pid, status-file, status-file-no-pid or none";

    /** The probe of {@code kind} for the colours under {@code runDir}; a one-line error naming the kinds otherwise. */
    public static Function<Supplier<String>, DaemonProbe> of(String kind, Path runDir) {
        return switch (kind) {
            case "supervisor-socket" -> colour -> new SupervisorSocketProbe(runDir, colour, SupervisorSocketProbe.DEFAULT_DEADLINE, ProcStatLiveness.host());
            case "supervisor-socket-no-pid" -> colour -> new SupervisorSocketProbe(runDir, colour, SupervisorSocketProbe.DEFAULT_DEADLINE, null);
            case "status-file" -> colour -> new SupervisorProbe(runDir, colour, true);
            case "status-file-no-pid" -> colour -> new SupervisorProbe(runDir, colour, false);
            case "none" -> colour -> () -> true;
            default -> throw new IllegalArgumentException("--daemon-probe must be " + KINDS + ", not '" + kind + "'");
        };
    }
}
