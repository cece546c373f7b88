package io.mpshare.upgrade.plan;

import io.mpshare.testing.ClassRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plan stays a pure function: no Kubernetes client, no I/O, no clock of its own, no sleeping (the adapter in
 * {@code upgrade.kube} brings the snapshot and the time). Checked on the compiled classes of the package (every type and
 * member their constant pools name, {@link ClassRefs}), so {@code Clock.systemUTC().instant()} or an inline
 * {@code java.nio.file.Files} is caught as surely as an import.
 */
class PlanPurityTest {
    private static final Path PLAN = Path.of("target/classes");
    private static final String PACKAGE = "io/mpshare/upgrade/plan/";

    /** What the plan may name: itself, core, and the JDK's language, collections and time values. */
    static final List<String> ALLOWED = List.of("io.mpshare.upgrade.plan.", "io.mpshare.core.", "java.lang.", "java.util.", "java.time.");

    /** Inside those, what reads a clock, sleeps, or reaches outside the process. */
    static final List<String> FORBIDDEN = List.of("java.time.Clock", "java.time.InstantSource.system", "java.lang.Thread",
            "java.lang.System.currentTimeMillis", "java.lang.System.nanoTime", "java.lang.System.getenv", "java.lang.System.getProperty",
            "java.lang.ProcessBuilder", "java.lang.Runtime", "java.util.concurrent.");

    static List<String> violations(Path classes) {
        return ClassRefs.in(classes).stream()
                .filter(r -> r.from().startsWith(PACKAGE))
                .filter(r -> ALLOWED.stream().noneMatch(r.target()::startsWith) || FORBIDDEN.stream().anyMatch(r.target()::startsWith)
                        || r.target().startsWith("java.time.") && r.target().endsWith(".now"))
                .map(ClassRefs.Ref::toString).toList();
    }

    @Test void planClasses_referToNoAdapterClockOrIo() {
        assertThat(ClassRefs.in(PLAN)).filteredOn(r -> r.from().startsWith(PACKAGE)).as("compiled plan classes (run through Maven)").isNotEmpty();
        assertThat(violations(PLAN)).isEmpty();
    }

    /** The check fails on a clock read and a sleep that a text search for {@code Instant.now()} would not have found. */
    @Test void violations_systemClockSleepAndFiles_found(@TempDir Path dir) throws IOException {
        Path classes = ClassRefs.compile(dir.resolve("classes"), Map.of("io/mpshare/upgrade/plan/Bad.java", """
                package io.mpshare.upgrade.plan;
                class Bad {
                    java.time.Instant at() { return java.time.Clock.systemUTC().instant(); }
                    java.time.LocalDate today() { return java.time.LocalDate.now(); }
                    void pause() throws InterruptedException { Thread.sleep(1); }
                    boolean seen() { return java.nio.file.Files.exists(java.nio.file.Path.of("/run")); }
                }
                """));
        assertThat(violations(classes)).contains(
                "io/mpshare/upgrade/plan/Bad.class refers to java.time.Clock.systemUTC",
                "io/mpshare/upgrade/plan/Bad.class refers to java.time.LocalDate.now",
                "io/mpshare/upgrade/plan/Bad.class refers to java.lang.Thread.sleep",
                "io/mpshare/upgrade/plan/Bad.class refers to java.nio.file.Files.exists");
    }
}
