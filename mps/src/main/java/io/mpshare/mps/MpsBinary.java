package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Finds {@code nvidia-cuda-mps-control}: the configured path, else PATH, /usr/local/nvidia/bin, /usr/bin. */
public final class MpsBinary {
    public static final String NAME = "nvidia-cuda-mps-control";
    static final List<Path> FALLBACK_DIRS = List.of(Path.of("/usr/local/nvidia/bin"), Path.of("/usr/bin"));

    private MpsBinary() {}

    public static Path locate(Optional<Path> configured) {
        return locate(configured, System.getenv("PATH"), FALLBACK_DIRS);
    }

    static Path locate(Optional<Path> configured, String pathEnv, List<Path> fallbackDirs) {
        if (configured.isPresent()) {
            Path p = configured.get();
            if (Files.isExecutable(p)) return p;
            throw new MpsException(Reason.CANNOT_RUN, p + " is not an executable file (the configured " + NAME + ")");
        }
        List<Path> dirs = new ArrayList<>();
        if (pathEnv != null) for (String d : pathEnv.split(File.pathSeparator)) if (!d.isBlank()) dirs.add(Path.of(d));
        dirs.addAll(fallbackDirs);
        for (Path d : dirs) {
            Path p = d.resolve(NAME);
            if (Files.isExecutable(p)) return p;
        }
        throw new MpsException(Reason.CANNOT_RUN, NAME + " not found on PATH, " + fallbackDirs
                + ": install the NVIDIA driver's MPS tools on the node or pass its path (--mps-control-binary)");
    }
}
