package io.mpshare.deviceplugin.layers;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.testing.ClassRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node agent's layers, checked on its compiled main classes ({@link ClassRefs}: every type and member their
 * constant pools name, so an inline fully qualified name counts as surely as an import): the Allocate decision speaks
 * neither kubelet's wire nor its types; the ceiling does not reach into Allocate; fabric8's {@code Pod} stays at the
 * Kubernetes edge ({@code kube}) and the few adapters listed here (docs/decisions/node-bookings.md). Each rule is also
 * shown failing on a class compiled here to break it.
 */
class DevicePluginLayersTest {
    private static final String DP = "io.mpshare.deviceplugin";
    private static final String POD = Pod.class.getName();

    /** Classes in {@code from} (a package prefix) may not refer to anything under {@code forbidden}; {@code exempt} top-level classes may. */
    record Rule(String name, String from, List<String> forbidden, Set<String> exempt) {
        Rule(String name, String from, List<String> forbidden) { this(name, from, forbidden, Set.of()); }

        List<String> breaches(List<ClassRefs.Ref> refs) {
            return refs.stream().filter(r -> {
                String cls = className(r.from());
                if (!cls.startsWith(from) || exempt.contains(outer(cls))) return false;
                return forbidden.stream().anyMatch(f -> r.target().equals(f) || r.target().startsWith(f + ".") || r.target().startsWith(f + "$"));
            }).map(ClassRefs.Ref::toString).toList();
        }
    }

    static final Rule ALLOCATION_NOT_WIRE = new Rule("the Allocate decision speaks neither kubelet's wire nor its types", DP + ".allocation.",
            List.of(DP + ".kubelet", DP + ".api", "com.google.protobuf", "io.grpc"));
    static final Rule CEILING_NOT_ALLOCATION = new Rule("the ceiling follows the bookings, not the Allocate package", DP + ".ceiling.",
            List.of(DP + ".allocation"));
    /**
     * The Kubernetes I/O adapters that must hold a fabric8 Pod: the node's pod informer (it hands each pod to
     * {@code kube}'s NodeBookings, which reads it for everyone else), the annotation writer (the merge patch answers
     * with the pod) and the policer's evictor (it reads the pod's UID and resourceVersion to delete it with a
     * precondition).
     */
    static final Set<String> POD_ADAPTERS = Set.of(DP + ".cluster.NodePodCache", DP + ".cluster.PodAnnotator", DP + ".policing.KubeEvictor");
    static final Rule POD_AT_THE_EDGE = new Rule("fabric8's Pod only at the Kubernetes edge", DP + ".", List.of(POD), POD_ADAPTERS);

    static final List<Rule> RULES = List.of(ALLOCATION_NOT_WIRE, CEILING_NOT_ALLOCATION, POD_AT_THE_EDGE);

    @Test void mainClasses_keepEveryRule() {
        List<ClassRefs.Ref> refs = ClassRefs.in(Path.of("target/classes"));
        Set<String> classes = refs.stream().map(r -> outer(className(r.from()))).collect(Collectors.toSet());
        assertThat(classes).as("the classes the rules are about exist").anyMatch(c -> c.startsWith(DP + ".allocation."))
                .anyMatch(c -> c.startsWith(DP + ".ceiling.")).anyMatch(c -> c.startsWith(DP + ".kubelet."));
        for (Rule r : RULES) assertThat(r.breaches(refs)).as(r.name()).isEmpty();
        assertThat(classes).as("a listed Pod adapter that no longer exists is dropped from the list").containsAll(POD_ADAPTERS);
    }

    /** One class that breaks a rule, as javac compiles it. */
    record Violation(Rule rule, String cls, String body) {
        String source() {
            int dot = cls.lastIndexOf('.');
            return "package " + cls.substring(0, dot) + ";\nclass " + cls.substring(dot + 1) + " {\n" + body + "\n}\n";
        }
    }

    @Test void eachRule_failsOnADeliberateViolation(@TempDir Path dir) throws IOException {
        List<Violation> cases = List.of(
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.BadHandler",
                        "Object refuse() { return new io.mpshare.deviceplugin.kubelet.ResourceHandler.AllocateRefused(\"no\"); }"),
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.BadProto",
                        "Object answer() { return io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse.getDefaultInstance(); }"),
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.BadStatus", "Object status() { return io.grpc.Status.INTERNAL; }"),
                new Violation(CEILING_NOT_ALLOCATION, DP + ".ceiling.BadReach",
                        "int count(io.mpshare.deviceplugin.allocation.AllocationBook b) { return b.candidateCount(); }"),
                new Violation(POD_AT_THE_EDGE, DP + ".policing.BadPod",
                        "String uid(io.fabric8.kubernetes.api.model.Pod p) { return p.getMetadata().getUid(); }"),
                new Violation(POD_AT_THE_EDGE, DP + ".allocation.BadPods", "java.util.List<io.fabric8.kubernetes.api.model.Pod> pods;"));
        for (Violation v : cases) {
            Path classes = ClassRefs.compile(dir.resolve(v.cls()), Map.of(v.cls().replace('.', '/') + ".java", v.source()));
            assertThat(v.rule().breaches(ClassRefs.in(classes))).as(v.rule().name() + ": " + v.cls()).isNotEmpty()
                    .allSatisfy(b -> assertThat(b).startsWith(v.cls().replace('.', '/') + ".class refers to "));
        }
        Path fine = ClassRefs.compile(dir.resolve("fine"), Map.of(
                "io/mpshare/deviceplugin/cluster/NodePodCache.java",
                "package io.mpshare.deviceplugin.cluster; class NodePodCache { String uid(io.fabric8.kubernetes.api.model.Pod p) { return p.getMetadata().getUid(); } }",
                "io/mpshare/deviceplugin/ceiling/Fine.java",
                "package io.mpshare.deviceplugin.ceiling; class Fine { long c() { return io.mpshare.core.isolation.MpsLimits.ceilingMib(1); } }",
                "io/mpshare/deviceplugin/policing/FineBuilder.java",
                "package io.mpshare.deviceplugin.policing; class FineBuilder { Object b() { return new io.fabric8.kubernetes.api.model.PodBuilder(); } }"));
        for (Rule r : RULES) assertThat(r.breaches(ClassRefs.in(fine))).as(r.name() + ": a listed adapter, core's arithmetic, Pod's builder by name").isEmpty();
    }

    /** {@code io/mpshare/x/Y$Z.class} → {@code io.mpshare.x.Y$Z}. */
    static String className(String classFile) { return classFile.replace(".class", "").replace('/', '.'); }

    /** The top-level class of a nested one: {@code a.B$C} → {@code a.B}. */
    static String outer(String cls) {
        int d = cls.indexOf('$');
        return d < 0 ? cls : cls.substring(0, d);
    }
}
