package io.mpshare.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.ClassEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core depends on the JDK alone (ARCHITECTURE.md, STYLE.md §1): no Kubernetes, gRPC, HTTP, JSON or FFM.
 * Checked twice: the imports of every main source, and every class the compiled main classes refer to
 * (which also catches fully qualified names written inline).
 */
class CoreBoundaryTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Path CLASSES = Path.of("target/classes");
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

    @Test
    void mainClasses_referOnlyToJavaAndCore() throws IOException {
        assertThat(CLASSES).as("compiled classes (run through Maven)").isDirectory();
        List<String> bad = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(CLASSES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                checked++;
                var model = ClassFile.of().parse(f);
                for (var entry : model.constantPool()) {
                    if (!(entry instanceof ClassEntry c)) continue;
                    String name = c.asInternalName();
                    while (name.startsWith("[")) name = name.substring(1);
                    if (name.startsWith("L") && name.endsWith(";")) name = name.substring(1, name.length() - 1);
                    if (name.length() == 1) continue; // primitive array component
                    if (!allowed(name)) bad.add(CLASSES.relativize(f) + " refers to " + name.replace('/', '.'));
                }
            }
        }
        assertThat(checked).isPositive();
        assertThat(bad).as("core classes must refer only to java.* (not java.lang.foreign, java.net.http) and io.mpshare.core").isEmpty();
    }
}
