package io.mpshare.deviceplugin.health;

import io.mpshare.mps.Colour;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Asks the active colour's supervisor whether its daemon is up, without sharing a network namespace: reads
 * {@code <runDir>/<colour>/status.json} (rewritten by the supervisor on every change) and, when {@code checkPid},
 * also that the daemon PID it names is running ({@link ProcessLiveness}: a zombie is dead). The device plugin DaemonSet
 * runs with hostPID, so a daemon killed together with its supervisor (the file then still says "up") is seen at the
 * next poll. It cannot see a hung supervisor whose daemon still runs: {@link SupervisorSocketProbe} (the default) can.
 */
public final class SupervisorProbe implements DaemonProbe {
    private final Path runDir;
    private final Supplier<String> colour;
    private final ProcessLiveness liveness;

    /** @param checkPid also check the daemon PID in the host's {@code /proc} */
    public SupervisorProbe(Path runDir, Supplier<String> colour, boolean checkPid) {
        this(runDir, colour, checkPid ? ProcStatLiveness.host() : null);
    }

    /** @param liveness null: trust the file's {@code daemonUp} */
    public SupervisorProbe(Path runDir, Supplier<String> colour, ProcessLiveness liveness) {
        this.runDir = runDir;
        this.colour = colour;
        this.liveness = liveness;
    }

    @Override public boolean daemonUp() {
        Colour c = Colour.parse(colour.get());
        SupervisorStatus s = SupervisorStatusClient.readFile(c.statusFile(runDir));
        if (!s.daemonUp()) return false;
        return liveness == null || s.daemonPid() <= 0 || liveness.alive(s.daemonPid());
    }
}
