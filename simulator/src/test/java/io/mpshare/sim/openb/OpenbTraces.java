package io.mpshare.sim.openb;

import io.mpshare.testing.Prerequisites;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Where the tests find Alibaba's openb trace files (not in the repository): the folder named by the system property
 * {@value #PROPERTY} or the environment variable {@value #ENV}, else {@code ../shared/traces/alibaba-gpu-v2023} beside
 * the clone. Without them a test is skipped, and under {@code CI=true} fails, saying how to get them.
 */
public final class OpenbTraces {
    public static final String PROPERTY = "mpshare.openb.traces";
    public static final String ENV = "MPSHARE_OPENB_TRACES";
    /** From a module folder: the {@code shared} folder beside the clone. */
    static final Path BESIDE_CLONE = Path.of("..", "..", "shared", "traces", "alibaba-gpu-v2023");

    private OpenbTraces() {}

    /** The folder that holds every one of {@code files}; skips the test (fails it under CI=true) when there is none. */
    public static Path require(String... files) {
        String given = System.getProperty(PROPERTY, System.getenv(ENV));
        Path dir = given != null && !given.isBlank() ? Path.of(given) : BESIDE_CLONE;
        List<String> missing = Arrays.stream(files).filter(f -> !Files.isRegularFile(dir.resolve(f))).toList();
        if (given != null && !given.isBlank() && !missing.isEmpty())
            throw new IllegalStateException(PROPERTY + "/" + ENV + " is " + given + ", which holds no " + missing + ": point it at the folder of the openb CSV files");
        Prerequisites.require(missing.isEmpty(), "the openb trace files " + missing + " are not in " + dir.toAbsolutePath().normalize()
                + ". Get them with git clone https://github.com/alibaba/clusterdata (folder cluster-trace-gpu-v2023/csv), then set "
                + ENV + " or -D" + PROPERTY + " to that folder");
        return dir;
    }
}
