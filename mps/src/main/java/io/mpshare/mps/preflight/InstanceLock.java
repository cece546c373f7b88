package io.mpshare.mps.preflight;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive lock on a file ({@link FileChannel#tryLock}, a POSIX record lock), held while an agent runs. The kernel
 * drops it when the process ends, however it ends, so a crash leaves no stale lock to clean up; the file itself stays.
 * The holder writes its PID into the file, so a second agent can say who holds it.
 *
 * <p>Implementation notes. POSIX locks belong to the process: closing any descriptor of the file drops every lock
 * the process holds on it. A second attempt in the same JVM (tests run several agents in one) therefore must not open
 * the file at all; the locks this JVM holds are kept in {@link #HELD}, by file key (device and inode), and such an
 * attempt answers {@link Held} with this process's PID. The file is never deleted: a holder that deleted it on exit
 * could race a newcomer that had just opened the old inode.
 */
public final class InstanceLock implements AutoCloseable {
    /** The locks this process holds: POSIX locks are per process, so this state is per process too. */
    private static final Map<Object, InstanceLock> HELD = new ConcurrentHashMap<>();

    /** The outcome of {@link #tryAcquire}. */
    public sealed interface Attempt permits Acquired, Held {}

    public record Acquired(InstanceLock lock) implements Attempt {}

    /** Another process (or this one, elsewhere) holds the lock; {@code pid} as the holder wrote it, when it did. */
    public record Held(Path file, OptionalLong pid) implements Attempt {}

    private final Path file;
    private final Object key;
    private final FileChannel channel;
    private final FileLock lock;

    private InstanceLock(Path file, Object key, FileChannel channel, FileLock lock) {
        this.file = file;
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /** Creates the file (and its folder) if needed and takes the lock without waiting. */
    public static Attempt tryAcquire(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (!Files.exists(file)) {
            try {
                Files.createFile(file);
            } catch (FileAlreadyExistsException raced) {
                // another agent created it a moment ago: lock it all the same
            }
        }
        Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        synchronized (HELD) {
            if (key != null && HELD.containsKey(key)) return new Held(file, OptionalLong.of(ProcessHandle.current().pid()));
            FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            if (l == null) {
                OptionalLong pid = readPid(ch);
                ch.close();
                return new Held(file, pid);
            }
            InstanceLock held = new InstanceLock(file, key, ch, l);
            held.writePid();
            if (key != null) HELD.put(key, held);
            return new Acquired(held);
        }
    }

    /**
     * Who holds the lock, without taking it and without creating anything: no file is no holder. A shared lock is
     * tried on a read-only descriptor and let go at once.
     */
    public static Optional<Held> holder(Path file) throws IOException {
        if (!Files.exists(file)) return Optional.empty();
        Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        synchronized (HELD) {
            if (key != null && HELD.containsKey(key)) return Optional.of(new Held(file, OptionalLong.of(ProcessHandle.current().pid())));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                FileLock l;
                try {
                    l = ch.tryLock(0, Long.MAX_VALUE, true);
                } catch (OverlappingFileLockException e) {
                    l = null;
                }
                if (l != null) {
                    l.release();
                    return Optional.empty();
                }
                return Optional.of(new Held(file, readPid(ch)));
            }
        }
    }

    public Path file() { return file; }

    private void writePid() throws IOException {
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
    }

    private static OptionalLong readPid(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(32);
        ch.read(buf, 0);
        String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).strip();
        try {
            long pid = Long.parseLong(text);
            return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();   // written a moment from now, or by something else
        }
    }

    /** Releases the lock (the file stays). */
    @Override public void close() {
        synchronized (HELD) {
            if (key != null) HELD.remove(key, this);
            try {
                if (lock.isValid()) lock.release();
                channel.close();
            } catch (IOException e) {
                // the lock goes with the descriptor either way
            }
        }
    }
}
