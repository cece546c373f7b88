package io.mpshare.testing;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules for the main code of every module, read from the sources: types are imported, never written fully qualified
 * in the code (an import says once what a name means; a name qualified inline next to imported ones hides a clash,
 * which a rename says better); comments say what the code does and why, never which issue asked for it.
 */
class MainSourceRulesTest {
    /**
     * Files that must keep a fully qualified name, each with its reason (Java requires it only where two types of one
     * simple name meet in one file, and a rename is not possible).
     */
    static final Map<String, String> INLINE_NAMES_ALLOWED = Map.of();

    static final Path ROOT = repositoryRoot();

    @Test void mainSources_found() {
        assertThat(MainSources.files(ROOT)).as("main sources under " + ROOT)
                .anyMatch(p -> p.endsWith("core/src/main/java/io/mpshare/core/Names.java"))
                .anyMatch(p -> p.toString().contains("/e2e/"))
                .anyMatch(p -> p.toString().contains("/bench/"));
    }

    @Test void mainSources_importTheirTypes() {
        assertThat(findings(true)).as("inline fully qualified names in src/main (import them)").isEmpty();
    }

    @Test void mainSources_haveNoIssueNumbersInComments() {
        assertThat(findings(false)).as("issue numbers in src/main comments (say what and why instead)").isEmpty();
    }

    /** The rule catches a qualified name in a declaration, a constructor call and a static call, and nothing else. */
    @Test void inlineNames_deliberateViolation_found() {
        String source = """
                package io.mpshare.x;

                import java.util.List;
                import static java.util.Objects.requireNonNull;

                /** Uses {@link java.util.Map} and java.util.Set in prose, which is fine. */
                class Bad {
                    java.util.function.BiConsumer<io.mpshare.core.model.PodKey, List<String>> sink;
                    Object lock = new java.util.concurrent.locks.ReentrantLock();
                    String name = "java.util.logging.ConsoleHandler";
                    long now() { return java.util.concurrent.TimeUnit.SECONDS.toMillis(this.sink.hashCode()); }
                    char c = '"';
                    String block = \"""
                            io.mpshare.core.Names in a text block
                            \""";
                }
                """;
        assertThat(MainSources.inlineNames("Bad.java", source)).extracting(MainSources.Finding::toString).containsExactly(
                "Bad.java:8: java.util.function.BiConsumer",
                "Bad.java:8: io.mpshare.core.model.PodKey",
                "Bad.java:9: java.util.concurrent.locks.ReentrantLock",
                "Bad.java:11: java.util.concurrent.TimeUnit");
    }

    @Test void issueNumbers_deliberateViolation_found() {
        String source = """
                package io.mpshare.x;

                /** Zombies count as alive (issue 15). */
                class Bad {
                    // see Issue #7 for why
                    String s = "issue 9 in a string is data, not a comment";
                    /* the issues of sharing are many, 3 of them here */
                }
                """;
        assertThat(MainSources.issueNumbers("Bad.java", source)).extracting(MainSources.Finding::toString)
                .containsExactly("Bad.java:3: issue 15", "Bad.java:5: Issue #7");
    }

    private static List<MainSources.Finding> findings(boolean inlineNames) {
        return MainSources.files(ROOT).stream().flatMap(f -> {
            String file = ROOT.relativize(f).toString().replace('\\', '/');
            if (inlineNames && INLINE_NAMES_ALLOWED.containsKey(file)) return List.<MainSources.Finding>of().stream();
            String source = MainSources.read(f);
            return (inlineNames ? MainSources.inlineNames(file, source) : MainSources.issueNumbers(file, source)).stream();
        }).toList();
    }

    /** The folder above this module (Maven runs tests in the module's folder). */
    private static Path repositoryRoot() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("testing/pom.xml"))) {
            throw new IllegalStateException(root + " is not the repository root (run through Maven from the repository)");
        }
        return root;
    }
}
