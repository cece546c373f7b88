package io.mpshare.core;

import io.mpshare.testing.ClassRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core depends on the JDK alone (ARCHITECTURE.md, STYLE.md §1): no Kubernetes, gRPC, HTTP, JSON or FFM.
 * Checked twice: the imports of every main source, and every type and member the compiled main classes refer to
 * ({@link ClassRefs}, which also catches fully qualified names written inline). It lives in {@code testing}, the module
 * above core that holds the class-file checker every layering test uses.
 */
class CoreBoundaryTest {
    private static final Path SOURCES = Path.of("../core/src/main/java");
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(?:static\\s+)?([\\w.]+)", Pattern.MULTILINE);

    /** Allowed: the core's own packages and java.*, except the FFM and HTTP client packages. */
    static boolean allowed(String qualifiedName) {
        String n = qualifiedName.replace('/', '.');
        if (n.startsWith("io.mpshare.core.")) return true;
        if (n.startsWith("java.lang.foreign.") || n.startsWith("java.net.http.")) return false;
        return n.startsWith("java.");
    }

    @Test
    void allowed_rules() {
        assertThat(allowed("java.util.List")).isTrue();
        assertThat(allowed("io.mpshare.core.ledger.Ledger")).isTrue();
        assertThat(allowed("java.lang.foreign.MemorySegment")).isFalse();
        assertThat(allowed("java.net.http.HttpClient")).isFalse();
        assertThat(allowed("com.sun.net.httpserver.HttpServer")).isFalse();
        assertThat(allowed("javax.net.ssl.SSLContext")).isFalse();
        assertThat(allowed("io.fabric8.kubernetes.api.model.Pod")).isFalse();
        assertThat(allowed("io.grpc.Server")).isFalse();
        assertThat(allowed("com.fasterxml.jackson.databind.ObjectMapper")).isFalse();
        assertThat(allowed("io.mpshare.nvml.Nvml")).isFalse();
    }

    @Test
    void mainSources_importOnlyJavaAndCore() throws IOException {
        List<String> bad = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) if (!allowed(m.group(1))) bad.add(SOURCES.relativize(f) + " imports " + m.group(1));
            }
        }
        assertThat(bad).as("core main sources must import only java.* (not java.lang.foreign, java.net.http) and io.mpshare.core").isEmpty();
    }

    static List<String> violations(List<ClassRefs.Ref> refs) {
        return refs.stream().filter(r -> !allowed(r.target())).map(ClassRefs.Ref::toString).toList();
    }

    @Test
    void mainClasses_referOnlyToJavaAndCore() {
        List<ClassRefs.Ref> refs = ClassRefs.ofModule(Names.class);
        assertThat(refs).as("compiled core classes (run through Maven)").isNotEmpty();
        assertThat(violations(refs)).as("core classes must refer only to java.* (not java.lang.foreign, java.net.http) and io.mpshare.core").isEmpty();
    }

    /** The check fails on an HTTP client written inline in a core class, with no import line. */
    @Test
    void violations_inlineHttpClient_found(@TempDir Path dir) throws IOException {
        Path classes = ClassRefs.compile(dir.resolve("classes"), Map.of("io/mpshare/core/Bad.java", """
                package io.mpshare.core;
                class Bad {
                    Object client() { return java.net.http.HttpClient.newHttpClient(); }
                }
                """));
        assertThat(violations(ClassRefs.in(classes))).contains("io/mpshare/core/Bad.class refers to java.net.http.HttpClient");
    }
}
