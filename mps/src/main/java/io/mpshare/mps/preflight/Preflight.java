package io.mpshare.mps.preflight;

import io.mpshare.mps.preflight.InstanceLock.Acquired;
import io.mpshare.mps.preflight.InstanceLock.Held;
import io.mpshare.mps.preflight.Occupancy.Kind;
import io.mpshare.mps.preflight.Occupancy.Use;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one node agent must have to itself, checked before it changes anything: its lock file, the unix sockets it
 * serves (one that answers belongs to a live agent; one that does not is left from a crash and may be replaced), and
 * the TCP ports it listens on. {@link #claim} takes the lock for the agent's life; {@link #check} only looks and
 * creates nothing. Either
 * refuses with {@link AlreadyRunning}, one line: what runs, which process holds what, what to do, and that nothing
 * was changed.
 *
 * @param agent  what runs, for the message: {@code another device plugin}, {@code the blue MPS supervisor}
 * @param advice what to do when it runs: {@code Stop it first: one device plugin per node}
 * @param lock   the lock file
 * @param sockets the unix sockets the agent will serve
 * @param ports  the TCP addresses it will listen on, each with the flag that chooses it
 */
public record Preflight(String agent, String advice, Path lock, List<Path> sockets, List<Port> ports, ProcTable proc) {
    /** A TCP address the agent will bind, and the option that sets it ({@code --metrics-port}). */
    public record Port(InetSocketAddress address, String flag) {
        String what() { return "port " + address.getPort() + " (" + flag + ")"; }
    }

    public Preflight {
        sockets = List.copyOf(sockets);
        ports = List.copyOf(ports);
    }

    /** Takes the lock, then checks sockets and ports; returns the lock to hold while the agent runs. */
    public InstanceLock claim() {
        Attempt a = attempt();
        Occupancy found = occupancy(a.held());
        if (!found.isEmpty()) {
            a.release();
            throw refusal(found);
        }
        return a.lock().orElseThrow();
    }

    /** The same checks, without taking the lock and without creating anything. */
    public void check() {
        Optional<Held> held;
        try {
            held = InstanceLock.holder(lock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the lock " + lock, e);
        }
        Occupancy found = occupancy(held);
        if (!found.isEmpty()) throw refusal(found);
    }

    private record Attempt(Optional<InstanceLock> lock, Optional<Held> held) {
        void release() { lock.ifPresent(InstanceLock::close); }
    }

    private Attempt attempt() {
        try {
            return switch (InstanceLock.tryAcquire(lock)) {
                case Acquired a -> new Attempt(Optional.of(a.lock()), Optional.empty());
                case Held h -> new Attempt(Optional.empty(), Optional.of(h));
            };
        } catch (IOException e) {
            throw new UncheckedIOException("cannot take the lock " + lock, e);
        }
    }

    private Occupancy occupancy(Optional<Held> held) {
        List<Use> uses = new ArrayList<>();
        // the PID the holder wrote is named only if that process can be seen here (a holder in another PID namespace
        // wrote its own view of it)
        held.ifPresent(h -> uses.add(new Use(Kind.LOCK, lock.toString(),
                h.pid().isPresent() ? proc.process(h.pid().getAsLong()) : Optional.empty())));
        for (Path s : sockets)
            if (answers(s)) uses.add(new Use(Kind.SOCKET, s.toString(), proc.unixListener(s)));
        for (Port p : ports)
            if (taken(p.address())) uses.add(new Use(Kind.PORT, p.what(), proc.tcpListener(p.address().getPort())));
        return new Occupancy(uses);
    }

    private AlreadyRunning refusal(Occupancy found) {
        if (found.agentRunning())
            return new AlreadyRunning(agent + " is running here: " + found.describe() + ". " + advice + ". Nothing was changed", found);
        Port first = ports.stream().filter(p -> found.ports().contains(p.what())).findFirst().orElseThrow();
        return new AlreadyRunning(Occupancy.and(found.ports()) + (found.ports().size() > 1 ? " are" : " is") + " in use: " + found.describe()
                + ". Stop that process, or choose another port with " + first.flag() + ". Nothing was changed", found);
    }

    /** Something accepts connections on this unix socket (a file left by a crash refuses them). */
    static boolean answers(Path socket) {
        if (!Files.exists(socket)) return false;
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    /** Binding the address fails as the agent's own bind would: something listens there. */
    static boolean taken(InetSocketAddress address) {
        if (address.getPort() == 0) return false;
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(address);
            return false;
        } catch (BindException e) {
            return true;
        } catch (IOException e) {
            return false;   // not a conflict this check can name; the agent's own bind reports it
        }
    }
}
