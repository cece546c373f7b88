package io.mpshare.deviceplugin.health;

import io.mpshare.mps.Colour;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The daemon's health from the active colour's supervisor, over its unix socket ({@code <runDir>/<colour>/supervisor.sock}):
 * a {@code /heartbeat} answered by the supervisor's own thread, with a deadline, then the daemon's PID checked in
 * {@code /proc} (a zombie is dead). Down when any of these fails:
 * <ul>
 *   <li>no answer within {@code deadline} (supervisor stopped, e.g. SIGSTOP; or gone): it could not notice its daemon's
 *       death, so its last word "up" is worth nothing;</li>
 *   <li>503 from the supervisor: its thread is stuck (it answers {@code /heartbeat} only from that thread);</li>
 *   <li>{@code ready} false (daemon down, restarting, or a ceiling not applied yet);</li>
 *   <li>the daemon PID it names is not running ({@link ProcessLiveness}: exited, zombie, or not visible).</li>
 * </ul>
 * Detection: at most the health period plus {@code deadline} (defaults 500 ms + 1 s, within the 2 s goal). The reason
 * of a failure is the exception's message, which the health monitor logs.
 */
public final class SupervisorSocketProbe implements DaemonProbe {
    /** The default heartbeat deadline; with the 500 ms health period a hung supervisor is seen within 1.5 s. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(1);

    private final Path runDir;
    private final Supplier<String> colour;
    private final Duration deadline;
    private final ProcessLiveness liveness;

    /** @param liveness null: do not check the daemon PID (a device plugin without hostPID) */
    public SupervisorSocketProbe(Path runDir, Supplier<String> colour, Duration deadline, ProcessLiveness liveness) {
        this.runDir = runDir;
        this.colour = colour;
        this.deadline = deadline;
        this.liveness = liveness;
    }

    @Override public boolean daemonUp() {
        Colour c = Colour.parse(colour.get());
        SupervisorStatus s = SupervisorStatusClient.forColourSocket(c, runDir, deadline).heartbeat();
        if (!s.ready()) {
            throw new IllegalStateException("the " + c.id() + " MPS supervisor reports its daemon not ready (" + s.phase()
                    + (s.lastError() == null ? "" : ": " + s.lastError()) + ")");
        }
        if (liveness != null && s.daemonPid() > 0 && !liveness.alive(s.daemonPid())) {
            throw new IllegalStateException("the " + c.id() + " MPS control daemon (pid " + s.daemonPid()
                    + ") is not running (exited or a zombie) although its supervisor says ready");
        }
        return true;
    }
}
