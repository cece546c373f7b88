package io.mpshare.e2e.node;

import io.mpshare.mps.DomainPaths;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The MPS server of one fault domain, which the tier's fake control binary leaves out: the fake daemon answers
 * {@code get_server_list} and {@code get_client_list} from the files {@code servers} and {@code clients.<server>} of
 * its pipe directory, and this class writes them as a real server would, with a live server process and the host PIDs
 * of the containers it serves. It follows MPS as measured (FACTS.md): a client's fatal fault ends every client of the
 * server (here the supervisor's SIGKILL does the ending), the server writes
 * {@code Server teardown in progress. Refusing to accept new client} to the domain's log, and refuses every new
 * client until each faulted client has exited; an exited client leaves the server's list.
 */
final class DomainServer implements AutoCloseable {
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    private final DomainPaths paths;
    private final Process server;
    private final Set<Long> clients = new LinkedHashSet<>();
    private final Set<Long> faulted = new LinkedHashSet<>();

    private DomainServer(DomainPaths paths, Process server) {
        this.paths = paths;
        this.server = server;
    }

    /** A server starts for the domain's daemon (which must run: its pipe directory exists). */
    static DomainServer start(DomainPaths paths) throws IOException {
        Process p = new ProcessBuilder("sleep", "3600").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        DomainServer s = new DomainServer(paths, p);
        Files.writeString(paths.pipeDir().resolve("servers"), p.pid() + "\n");
        s.write();
        return s;
    }

    long pid() { return server.pid(); }

    /** Process {@code pid} connects as a client; refused (false) while a fault's clients have not all exited. */
    synchronized boolean connect(long pid) throws IOException {
        forgetExited();
        if (!faulted.isEmpty()) return false;
        clients.add(pid);
        write();
        return true;
    }

    /**
     * One client's fatal fault: every client of the server is faulted (their work fails; they are gone once their
     * processes exit) and the server logs its teardown where the domain's daemon writes. Returns the faulted clients.
     */
    synchronized List<Long> fault() throws IOException {
        faulted.addAll(clients);
        String line = "[" + LocalDateTime.now(ZoneOffset.UTC).format(LOG_TIME) + " Server " + pid()
                + "] Server teardown in progress. Refusing to accept new client\n";
        Files.writeString(paths.daemonLog(), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return List.copyOf(faulted);
    }

    /** Whether new clients are refused: a faulted client still runs. */
    synchronized boolean tearingDown() throws IOException {
        forgetExited();
        return !faulted.isEmpty();
    }

    synchronized List<Long> clients() throws IOException {
        forgetExited();
        return new ArrayList<>(clients);
    }

    /** Exited clients leave the server's list (and the fault, once none of its clients runs). */
    private void forgetExited() throws IOException {
        boolean changed = clients.removeIf(pid -> !alive(pid));
        faulted.removeIf(pid -> !alive(pid));
        if (changed) write();
    }

    private static boolean alive(long pid) { return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false); }

    private void write() throws IOException {
        Files.writeString(paths.pipeDir().resolve("clients." + pid()), clients.stream().map(p -> p + "\n").collect(Collectors.joining()));
    }

    /** The server exits: its list is emptied so the domain's daemon can drain and quit. */
    @Override public synchronized void close() throws IOException {
        clients.clear();
        faulted.clear();
        if (Files.isDirectory(paths.pipeDir())) {
            write();
            Files.writeString(paths.pipeDir().resolve("servers"), "");
        }
        server.destroyForcibly();
    }
}
