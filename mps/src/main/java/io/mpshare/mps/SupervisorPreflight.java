package io.mpshare.mps;

import io.mpshare.mps.preflight.Preflight;
import io.mpshare.mps.preflight.ProcTable;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One supervisor per colour and run folder: before it builds anything (the supervisor's first act is to delete the
 * colour's ready marker, then it starts a daemon on the colour's pipe; host mode first quits an idle daemon it finds
 * there), {@code mpshare mps-control} and {@code mpshare host} take {@code <run-dir>/<colour>/supervisor.lock} and
 * check the colour's supervisor socket and the optional status port. The other colour is a deliberate second daemon
 * (blue/green, docs/upgrade.md) and is never refused; the same colour twice is refused with one line, nothing changed.
 */
public final class SupervisorPreflight {
    private SupervisorPreflight() {}

    /**
     * {@code mpshare mps-control}.
     *
     * @param socket     the supervisor socket it will serve
     * @param statusPort the TCP address of {@code --status-port}, if one is set
     */
    public static Preflight mpsControl(Colour colour, Path runDir, Path socket, Optional<InetSocketAddress> statusPort) {
        Colour other = colour == Colour.BLUE ? Colour.GREEN : Colour.BLUE;
        return of("the " + colour.id() + " MPS supervisor",
                "Stop it first: one supervisor per colour (a second daemon beside it is the other colour, --colour " + other.id() + "; docs/upgrade.md)",
                colour, runDir, Optional.of(socket), statusPort);
    }

    /** {@code mpshare host}: its daemon is the blue one of its run folder, with no supervisor socket. */
    public static Preflight host(Path runDir, Optional<InetSocketAddress> statusPort) {
        return of("an MPS supervisor of " + runDir, "Stop it first, or give this one its own --run-dir", Colour.BLUE, runDir, Optional.empty(), statusPort);
    }

    private static Preflight of(String agent, String advice, Colour colour, Path runDir, Optional<Path> socket, Optional<InetSocketAddress> statusPort) {
        return new Preflight(agent, advice, colour.lockFile(runDir), socket.stream().toList(),
                statusPort.stream().map(a -> new Preflight.Port(a, "--status-port")).toList(), ProcTable.host());
    }
}
