package io.mpshare.deviceplugin.health;

import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Supplier;

/**
 * The daemon's health from the active colour's supervisor, over its unix socket ({@code <runDir>/<colour>/supervisor.sock}):
 * a {@code /heartbeat} answered by the supervisor's own thread, with a deadline, then the daemon's PID checked in
 * {@code /proc} (a zombie is dead). Down when any of these fails:
 * <ul>
 *   <li>{@code ready} false (daemon down, restarting, or a ceiling not applied yet), or no supervisor on the socket;</li>
 *   <li>the daemon PID it names is not running ({@link ProcessLiveness}: exited, zombie, or not visible);</li>
 *   <li>no answer within {@code deadline}, or a 503 (its thread is stuck): at once when the daemon PID of its last
 *       answer is no longer running (or cannot be checked), else once the supervisor has gone unanswered for
 *       {@code unansweredGrace}.</li>
 * </ul>
 * Why the grace: a supervisor that misses one heartbeat is usually slow, not hung (a GC pause, a CPU-throttled or
 * loaded node), and every Unhealthy report makes kubelet fail the pods it admits meanwhile for good
 * ({@code UnexpectedAdmissionError}). While the daemon it last named still runs, MPS keeps capping its clients; what a
 * hung supervisor stops is the ceiling's read-back (the policer still bounds what a client takes). A dead daemon is
 * seen within one health period plus {@code deadline} (defaults 500 ms + 1 s, within the 2 s goal); a hung supervisor
 * within {@code unansweredGrace} plus that ({@code docs/decisions/health-grace.md}). The reason of a failure is the
 * exception's message, which the health monitor logs.
 */
public final class SupervisorSocketProbe implements DaemonProbe {
    /** The default heartbeat deadline; with the 500 ms health period a hung supervisor is seen within 1.5 s. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(1);

    /** How long a supervisor may go unanswered, while the daemon it last named runs, before the devices turn Unhealthy. */
    public static final Duration DEFAULT_UNANSWERED_GRACE = Duration.ofSeconds(5);

    private final Path runDir;
    private final Supplier<String> colour;
    private final Duration deadline;
    private final ProcessLiveness liveness;
    private final InstantSource clock;
    private final Duration unansweredGrace;
    /** The last answer: its colour, time and daemon PID; touched only by the health monitor's serialised ticks. */
    private Answered last;

    private record Answered(Colour colour, Instant at, long daemonPid) {}

    /** @param liveness null: do not check the daemon PID (a device plugin without hostPID); then no grace either */
    public SupervisorSocketProbe(Path runDir, Supplier<String> colour, Duration deadline, ProcessLiveness liveness) {
        this(runDir, colour, deadline, liveness, InstantSource.system(), DEFAULT_UNANSWERED_GRACE);
    }

    public SupervisorSocketProbe(Path runDir, Supplier<String> colour, Duration deadline, ProcessLiveness liveness,
                                 InstantSource clock, Duration unansweredGrace) {
        this.runDir = runDir;
        this.colour = colour;
        this.deadline = deadline;
        this.liveness = liveness;
        this.clock = clock;
        this.unansweredGrace = unansweredGrace;
    }

    @Override public boolean daemonUp() {
        Colour c = Colour.parse(colour.get());
        Answered before = last;
        last = null; // kept only by an "up" answer, or by a slow one within the grace of the last "up"
        SupervisorStatus s;
        try {
            s = SupervisorStatusClient.forColourSocket(c, runDir, deadline).heartbeat();
        } catch (MpsException e) {
            if (e.reason() != Reason.TIMEOUT || !withinGrace(before, c)) throw e;
            last = before;
            return true; // slow, not yet hung: the daemon it last named still runs
        }
        if (!s.ready()) {
            throw new IllegalStateException("the " + c.id() + " MPS supervisor reports its daemon not ready (" + s.phase()
                    + (s.lastError() == null ? "" : ": " + s.lastError()) + ")");
        }
        if (liveness != null && s.daemonPid() > 0 && !liveness.alive(s.daemonPid())) {
            throw new IllegalStateException("the " + c.id() + " MPS control daemon (pid " + s.daemonPid()
                    + ") is not running (exited or a zombie) although its supervisor says ready");
        }
        last = new Answered(c, clock.instant(), s.daemonPid()); // the last answer that said "up"
        return true;
    }

    private boolean withinGrace(Answered a, Colour c) {
        return a != null && a.colour() == c && liveness != null && a.daemonPid() > 0 && liveness.alive(a.daemonPid())
                && clock.instant().isBefore(a.at().plus(unansweredGrace));
    }
}
