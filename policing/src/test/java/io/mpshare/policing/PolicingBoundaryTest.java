package io.mpshare.policing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policer has no Kubernetes, gRPC or JSON library in it: the device plugin and host mode implement
 * its interfaces. Imports of main sources stay within the JDK, core, nvml, mps, Prometheus and this module.
 */
class PolicingBoundaryTest {
    static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+)", Pattern.MULTILINE);
    static final List<String> ALLOWED = List.of("java.", "io.mpshare.core.", "io.mpshare.nvml.", "io.mpshare.mps.",
            "io.mpshare.policing.", "io.prometheus.metrics.");

    @Test
    void mainSources_importOnlyAllowedPackages() throws IOException {
        List<String> bad = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                var m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String imp = m.group(1);
                    if (ALLOWED.stream().noneMatch(imp::startsWith)) bad.add(f.getFileName() + ": " + imp);
                }
            }
        }
        assertThat(bad).isEmpty();
    }
}
