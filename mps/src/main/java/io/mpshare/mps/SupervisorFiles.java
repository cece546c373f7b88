package io.mpshare.mps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.logging.Logger;

/** The supervisor's files under {@code <runDir>/<colour>/}: pipe and log folders, the readiness marker, status.json. */
final class SupervisorFiles {
    private static final Logger LOG = Logger.getLogger(SupervisorFiles.class.getName());
    private final Colour colour;
    private final Path runDir;

    SupervisorFiles(Colour colour, Path runDir) {
        this.colour = colour;
        this.runDir = runDir;
    }

    void createDirectories() throws IOException {
        Files.createDirectories(colour.pipeDir(runDir));
        Files.createDirectories(colour.logDir(runDir));
    }

    void writeReadyMarker(long daemonPid) {
        writeAtomically(colour.readyMarker(runDir), (daemonPid + "\n").getBytes(StandardCharsets.UTF_8));
    }

    void deleteReadyMarker() {
        try {
            Files.deleteIfExists(colour.readyMarker(runDir));
        } catch (IOException e) {
            LOG.warning("cannot delete the readiness marker " + colour.readyMarker(runDir) + ": " + e.getMessage());
        }
    }

    void writeStatus(SupervisorStatus status) {
        writeAtomically(colour.statusFile(runDir), StatusJson.write(status));
    }

    private void writeAtomically(Path target, byte[] content) {
        try {
            Files.createDirectories(target.getParent());
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            Files.write(tmp, content);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warning("cannot write " + target + ": " + e.getMessage());
        }
    }
}
