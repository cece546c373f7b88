package io.mpshare.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;

/** Who owns a process: the owner of {@code /proc/<pid>}, which the kernel sets to the process's effective UID. */
@FunctionalInterface
public interface PidOwners {
    /** The owner of a running process, empty when there is none with that PID. */
    Optional<UserPrincipal> owner(long pid);

    /** Reads the owner of {@code <procRoot>/<pid>}. */
    static PidOwners proc(Path procRoot) {
        return pid -> {
            if (pid <= 0) return Optional.empty();
            try {
                return Optional.of(Files.getOwner(procRoot.resolve(Long.toString(pid))));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        };
    }

    static PidOwners host() { return proc(Path.of("/proc")); }
}
