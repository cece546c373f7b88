package io.mpshare.policing;

import io.mpshare.testing.ClassRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policer has no Kubernetes, gRPC or JSON library in it: the device plugin and host mode implement its interfaces.
 * Checked on the compiled main classes (every type and member their constant pools name, {@link ClassRefs}), so a fully
 * qualified name written inline is caught as surely as an import: they refer only to the JDK, core, nvml, mps,
 * Prometheus and this module.
 */
class PolicingBoundaryTest {
    static final List<String> ALLOWED = List.of("java.", "io.mpshare.core.", "io.mpshare.nvml.", "io.mpshare.mps.",
            "io.mpshare.policing.", "io.prometheus.metrics.");

    static List<String> violations(Path classes) {
        return ClassRefs.in(classes).stream()
                .filter(r -> ALLOWED.stream().noneMatch(r.target()::startsWith))
                .map(ClassRefs.Ref::toString).toList();
    }

    @Test void mainClasses_referOnlyToAllowedPackages() {
        List<ClassRefs.Ref> refs = ClassRefs.in(Path.of("target/classes"));
        assertThat(refs).as("compiled main classes (run through Maven)").isNotEmpty();
        assertThat(violations(Path.of("target/classes"))).isEmpty();
    }

    /** The check fails on a fabric8 type named inline, with no import line (which a source scan would have missed). */
    @Test void violations_inlineFullyQualifiedFabric8Type_found(@TempDir Path dir) throws IOException {
        Path classes = ClassRefs.compile(dir.resolve("classes"), Map.of(
                "io/fabric8/kubernetes/api/model/Pod.java", "package io.fabric8.kubernetes.api.model; public class Pod {}",
                "io/mpshare/policing/Bad.java", """
                        package io.mpshare.policing;
                        class Bad {
                            Object pod() { return new io.fabric8.kubernetes.api.model.Pod(); }
                        }
                        """));
        assertThat(violations(classes)).contains("io/mpshare/policing/Bad.class refers to io.fabric8.kubernetes.api.model.Pod");
    }
}
