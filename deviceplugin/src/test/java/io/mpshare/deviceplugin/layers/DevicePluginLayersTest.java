package io.mpshare.deviceplugin.layers;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.deviceplugin.layers.ClassRefs.Rule;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node agent's layers, checked on its compiled main classes (docs/decisions/node-bookings.md): the Allocate
 * decision speaks neither kubelet's wire nor its types; the ceiling does not reach into Allocate; fabric8's {@code Pod}
 * stays at the Kubernetes edge ({@code kube}) and the few adapters listed here. Each rule is also shown failing on a
 * class built here to break it.
 */
class DevicePluginLayersTest {
    private static final Path CLASSES = Path.of("target/classes");
    private static final String DP = "io.mpshare.deviceplugin";
    private static final String POD = Pod.class.getName();

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

    @Test void mainClasses_keepEveryRule() throws IOException {
        assertThat(CLASSES).as("compiled classes (run through Maven)").isDirectory();
        Map<String, Set<String>> refs = ClassRefs.read(CLASSES);
        assertThat(refs.keySet()).as("the classes the rules are about exist").anyMatch(c -> c.startsWith(DP + ".allocation."))
                .anyMatch(c -> c.startsWith(DP + ".ceiling.")).anyMatch(c -> c.startsWith(DP + ".kubelet."));
        for (Rule r : RULES) assertThat(r.breaches(refs)).as(r.name()).isEmpty();
        for (String adapter : POD_ADAPTERS)
            assertThat(refs).as("a listed Pod adapter that no longer exists is dropped from the list").containsKey(adapter);
    }

    /** A class {@code name} with one static method taking a {@code param}, as javac would compile it. */
    static Map<String, Set<String>> violating(String name, String param) {
        byte[] bytes = ClassFile.of().build(ClassDesc.of(name), cb -> cb.withMethodBody("use",
                MethodTypeDesc.of(ConstantDescs.CD_void, ClassDesc.of(param)), ClassFile.ACC_STATIC | ClassFile.ACC_PUBLIC,
                code -> code.return_()));
        return Map.of(name, ClassRefs.of(ClassFile.of().parse(bytes)));
    }

    record Violation(Rule rule, String cls, String refersTo) {}

    @Test void eachRule_failsOnADeliberateViolation() {
        List<Violation> cases = List.of(
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.Bad", DP + ".kubelet.ResourceHandler"),
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.Bad", DP + ".api.v1beta1.ContainerAllocateResponse"),
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.Bad", "io.grpc.Status"),
                new Violation(ALLOCATION_NOT_WIRE, DP + ".allocation.Bad", "com.google.protobuf.Message"),
                new Violation(CEILING_NOT_ALLOCATION, DP + ".ceiling.Bad", DP + ".allocation.AllocationBook"),
                new Violation(POD_AT_THE_EDGE, DP + ".policing.Bad", POD),
                new Violation(POD_AT_THE_EDGE, DP + ".allocation.Bad$Inner", POD));
        for (Violation v : cases)
            assertThat(v.rule().breaches(violating(v.cls(), v.refersTo()))).as(v.rule().name() + ": " + v.cls())
                    .containsExactly(v.cls() + " refers to " + v.refersTo());
        assertThat(POD_AT_THE_EDGE.breaches(violating(DP + ".cluster.NodePodCache", POD))).as("a listed adapter").isEmpty();
        assertThat(POD_AT_THE_EDGE.breaches(violating(DP + ".policing.Fine", POD + "Builder"))).as("Pod by name, not its prefix")
                .isEmpty();
        assertThat(CEILING_NOT_ALLOCATION.breaches(violating(DP + ".ceiling.Fine", "io.mpshare.core.isolation.MpsLimits"))).isEmpty();
    }

    @Test void classRefs_seeTypesOnlyInSignatures() throws IOException {
        // a generic parameter type appears in no class entry, only in the Signature attribute's text
        Path self = Path.of("target/test-classes/io/mpshare/deviceplugin/layers/DevicePluginLayersTest$Generic.class");
        assertThat(Files.exists(self)).isTrue();
        assertThat(ClassRefs.of(ClassFile.of().parse(self))).contains(POD);
    }

    /** Refers to Pod only as a type argument. */
    @SuppressWarnings("unused")
    private static final class Generic {
        List<Pod> pods;
    }
}
