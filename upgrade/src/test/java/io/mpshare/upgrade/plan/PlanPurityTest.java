package io.mpshare.upgrade.plan;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The plan stays a pure function: no Kubernetes client, no I/O, no clock of its own. */
class PlanPurityTest {
    @Test void planPackage_importsNoAdapterTypes() throws IOException {
        Path dir = Path.of("src/main/java/io/mpshare/upgrade/plan");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) { files = s.filter(p -> p.toString().endsWith(".java")).toList(); }
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            assertThat(Files.readString(f)).as(f.toString())
                    .doesNotContain("io.fabric8").doesNotContain("java.net").doesNotContain("java.nio.file")
                    .doesNotContain("Instant.now()").doesNotContain("Thread.sleep");
        }
    }
}
