package io.mpshare.deviceplugin.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Which file this process loaded for a library, from its memory map ({@code /proc/self/maps}). */
public final class LoadedLibrary {
    private LoadedLibrary() {}

    /** The first mapped file whose name starts with {@code prefix} ({@code libnvidia-ml.so}), as this process sees it. */
    public static Optional<Path> find(Path maps, String prefix) {
        try {
            for (String line : Files.readAllLines(maps)) {
                int slash = line.indexOf('/');
                if (slash < 0) continue;
                Path p = Path.of(line.substring(slash).replaceFirst(" \\(deleted\\)$", ""));
                if (p.getFileName() != null && p.getFileName().toString().startsWith(prefix)) return Optional.of(p);
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
