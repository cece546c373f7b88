package io.mpshare.host.state;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The host's jobs file: {@code {"version":1,"jobs":[...]}}. Written atomically: a temporary file in the same
 * folder, fsync, rename over the old one, fsync of the folder. A crash leaves either the old or the new file,
 * never half of one.
 */
public final class StateStore {
    public static final int VERSION = 1;
    private final Path file;
    private final ObjectMapper json = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public StateStore(Path file) { this.file = file; }

    public Path file() { return file; }

    record State(int version, List<JobRecord> jobs) {}

    /** The jobs of the last save; empty when there is no file yet. */
    public List<JobRecord> load() {
        try {
            if (!Files.exists(file)) return List.of();
            State s = json.readValue(file.toFile(), State.class);
            if (s.version() != VERSION) throw new IOException("state file " + file + " has version " + s.version() + ", this mpshare reads " + VERSION);
            return s.jobs() == null ? List.of() : s.jobs();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the host state file " + file + ": " + e.getMessage(), e);
        }
    }

    public void save(List<JobRecord> jobs) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(file.getFileName() + ".tmp");
            byte[] bytes = json.writerWithDefaultPrettyPrinter().writeValueAsBytes(new State(VERSION, jobs));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) ch.write(b);
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            } catch (IOException ignored) {
                // some file systems cannot sync a directory; the rename is still atomic
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the host state file " + file + ": " + e.getMessage(), e);
        }
    }
}
