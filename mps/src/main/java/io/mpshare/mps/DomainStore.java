package io.mpshare.mps;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * What a supervisor keeps of each domain on disk ({@code <run>/<colour>/d/<id>/domain.json}), so that after its own
 * restart it adopts the domains' running daemons instead of starting new ones over them: the spec, the daemon's PID and
 * start time (a PID alone could name a later process), the drain, the fault count and the last fault. Written atomically
 * on every change; {@code /run} is a tmpfs, so a reboot, which also ends every daemon, starts empty.
 */
final class DomainStore {
    private static final Logger LOG = Logger.getLogger(DomainStore.class.getName());

    /** One domain as kept on disk. */
    record Record(String id, DomainSpec spec, long daemonPid, String daemonStartedAt, boolean draining, long faults,
                  DomainStatus.Fault lastFault) {}

    private final Colour colour;
    private final Path runDir;

    DomainStore(Colour colour, Path runDir) {
        this.colour = colour;
        this.runDir = runDir;
    }

    /** Every record under {@code <run>/<colour>/d/}; an unreadable one is named in the log and left out. */
    List<Record> load() {
        Path dir = colour.domainsDir(runDir);
        if (!Files.isDirectory(dir)) return List.of();
        List<Record> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path d : ds) {
                Path file = d.resolve("domain.json");
                if (!Files.isRegularFile(file)) continue;
                try {
                    Record r = StatusJson.read(Files.readAllBytes(file), Record.class);
                    if (r.id() == null || !r.id().equals(d.getFileName().toString()) || r.spec() == null)
                        throw new IOException("its id is not its folder's name, or it has no spec");
                    out.add(r);
                } catch (IOException | RuntimeException e) {
                    LOG.warning("ignoring the domain record " + file + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            LOG.warning("cannot list the domains under " + dir + ": " + e.getMessage());
        }
        out.sort(Comparator.comparing(Record::id));
        return out;
    }

    void write(Record r) {
        Path target = DomainPaths.of(colour, runDir, r.id()).record();
        try {
            Files.createDirectories(target.getParent());
            Path tmp = target.resolveSibling("domain.json.tmp");
            Files.write(tmp, StatusJson.write(r));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warning("cannot write " + target + ": " + e.getMessage());
        }
    }

    /** Removes a stopped domain's folder: its pipe directory (no daemon listens there any more), log and record. */
    void remove(String id) {
        Path dir = DomainPaths.of(colour, runDir, id).dir();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.warning("cannot remove " + dir + ": " + e.getMessage());
        }
    }
}
