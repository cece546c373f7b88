package io.mpshare.nvml;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** STYLE.md 6: FfmNvml is the only class of mpshare that touches java.lang.foreign. */
class ForeignOwnerTest {
    @Test void onlyFfmNvml_usesJavaLangForeign() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent(); // tests run in nvml/
        List<Path> users;
        try (Stream<Path> files = Files.walk(root, 20)) {
            users = files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
                    .filter(ForeignOwnerTest::usesForeign).map(root::relativize).toList();
        }
        assertThat(users).containsExactly(Path.of("nvml/src/main/java/io/mpshare/nvml/FfmNvml.java"));
    }

    private static boolean usesForeign(Path p) {
        try {
            return java.util.regex.Pattern.compile("java\\.lang\\.foreign\\.[A-Z]").matcher(Files.readString(p)).find(); // imports and qualified names, not prose
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
