package io.mpshare.mps;

import io.mpshare.core.Names;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The generation of an MPS control daemon on a node (the blue/green upgrade of {@code mpshare upgrade-node}): two
 * daemons with their own pipe directories can serve the same GPUs side by side (FACTS.md). Each colour owns
 * {@code /run/mpshare/<colour>/} (pipe, log, ready marker, status.json, supervisor.sock,
 * supervisor.lock) and an optional loopback status
 * port; this enum is the one place these paths are built. The colours' names, and which one is the default, are
 * {@link Names}' ({@link Names#MPS_COLOUR_BLUE}, {@link Names#MPS_COLOUR_DEFAULT}), which the pure parts use too.
 */
public enum Colour {
    BLUE(Names.MPS_COLOUR_BLUE, 39997), GREEN(Names.MPS_COLOUR_GREEN, 39998);

    /** The colour that receives new clients where nothing names one ({@link Names#MPS_COLOUR_DEFAULT}). */
    public static final Colour DEFAULT = parse(Names.MPS_COLOUR_DEFAULT);

    private final String id;
    private final int statusPort;

    Colour(String id, int statusPort) {
        this.id = id;
        this.statusPort = statusPort;
    }

    /** The supervisor's optional loopback TCP port for this colour ({@code --status-port -1}); off by default. */
    public int statusPort() { return statusPort; }

    public String id() { return id; }

    /** {@code <runDir>/<colour>}, by default {@code /run/mpshare/blue}. */
    public Path dir(Path runDir) { return runDir.resolve(id()); }

    /** The pipe directory clients reach the daemon through ({@code CUDA_MPS_PIPE_DIRECTORY}). */
    public Path pipeDir(Path runDir) { return dir(runDir).resolve("pipe"); }

    /** {@code CUDA_MPS_LOG_DIRECTORY}: control.log and server.log. */
    public Path logDir(Path runDir) { return dir(runDir).resolve("log"); }

    /** Present while the daemon is up with every setting applied; holds the daemon's PID. */
    public Path readyMarker(Path runDir) { return dir(runDir).resolve("ready"); }

    /**
     * The supervisor's API socket ({@link Names#SUPERVISOR_SOCKET}): status, heartbeat, ceilings. In {@code <colour>/},
     * not in {@code <colour>/pipe}: client containers mount only the pipe directory, so they cannot reach it.
     */
    public Path supervisorSocket(Path runDir) { return dir(runDir).resolve(Names.SUPERVISOR_SOCKET); }

    /** {@code <runDir>/<colour>/d}: one folder per fault domain ({@link DomainPaths}). */
    public Path domainsDir(Path runDir) { return dir(runDir).resolve("d"); }

    /** Held (a POSIX lock) by the one supervisor of this colour while it runs; holds its PID ({@link SupervisorPreflight}). */
    public Path lockFile(Path runDir) { return dir(runDir).resolve("supervisor.lock"); }

    /** The supervisor's status JSON, rewritten on every change (same content as GET /status). */
    public Path statusFile(Path runDir) { return dir(runDir).resolve("status.json"); }

    public static Path defaultRunDir() { return Path.of(Names.RUN_DIR); }

    public static Colour parse(String text) {
        String id = text.strip().toLowerCase(Locale.ROOT);
        for (Colour c : values()) if (c.id.equals(id)) return c;
        throw new IllegalArgumentException("colour must be " + BLUE.id + " or " + GREEN.id + ", not '" + text + "'");
    }
}
