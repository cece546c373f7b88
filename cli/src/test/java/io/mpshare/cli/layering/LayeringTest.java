package io.mpshare.cli.layering;

import io.mpshare.admission.review.PodAdmission;
import io.mpshare.cli.layering.fixture.PodReadingFixture;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.inspect.ClusterReader;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.testing.ClassRefs;
import io.mpshare.upgrade.kube.KubeNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layering of the moves that made one Kubernetes edge and stacked the extender's packages, checked on the
 * compiled classes ({@link ClassRefs}: class entries, descriptors and generic signatures, so inline full names are
 * seen too). {@code cli} depends on every product module, so its tests see all their classes. Each rule is shown
 * failing on a deliberate violation (a class built here with the JDK's class-file API in the rule's own package, or
 * the compiled {@link PodReadingFixture}) and holding on the real classes.
 */
class LayeringTest {
    /** A module by a class of its: where its compiled main classes are. */
    record Module(String name, Class<?> marker) {
        Map<String, byte[]> classes() { return ClassRefs.classesOf(marker); }

        @Override public String toString() { return name; }
    }

    static final LayerRule LEDGER_KNOWS_NO_POLICY = new LayerRule("core.ledger does not know placement policies (it books with a GpuChooser)",
            LayerRule.inPackage("io.mpshare.core.ledger"), LayerRule.inPackage("io.mpshare.core.policy"));

    static final LayerRule BIND_BELOW_VERBS = new LayerRule("scheduler.bind stands on the engine, the cycle and kube, not on the verbs or the wire",
            LayerRule.inPackage("io.mpshare.scheduler.bind"),
            LayerRule.inPackage("io.mpshare.scheduler.verbs").or(LayerRule.inPackage("io.mpshare.scheduler.http")));

    /** The fabric8 pod types that only {@code kube} reads; the rest of mpshare holds a {@code KubePod}. */
    static final Set<String> FABRIC8_POD = Set.of("io.fabric8.kubernetes.api.model.Pod", "io.fabric8.kubernetes.api.model.PodList");

    static final LayerRule ONLY_KUBE_READS_PODS = new LayerRule("only kube reads the fabric8 Pod (composition roots in cli may)",
            name -> !name.startsWith("io.mpshare.kube."), FABRIC8_POD::contains);

    /** The modules the Pod rule covers: one line per module (the device plugin joins once it reads pods through kube). */
    static final List<Module> POD_RULE_MODULES = List.of(
            new Module("scheduler", SchedulerExtender.class),
            new Module("inspect", ClusterReader.class),
            new Module("admission", PodAdmission.class),
            new Module("upgrade", KubeNode.class));

    /** A class named {@code name} with one field of type {@code fieldType} and one method taking {@code paramType}. */
    static byte[] synthetic(String name, String fieldType, String paramType) {
        return ClassFile.of().build(ClassDesc.of(name), cb -> cb
                .withField("ref", ClassDesc.of(fieldType), ClassFile.ACC_PRIVATE)
                .withMethodBody("use", MethodTypeDesc.of(ConstantDescs.CD_void, ClassDesc.of(paramType)), ClassFile.ACC_STATIC,
                        code -> code.return_()));
    }

    @Test
    void classRefs_seeFieldsParametersSignaturesAndClassEntries() {
        assertThat(ClassRefs.targets(synthetic("a.B", "c.D", "e.F"))).contains("c.D", "e.F");
        assertThat(ClassRefs.targets(ClassRefs.classesOf(PodReadingFixture.class).get(PodReadingFixture.class.getName())))
                .as("a type only in a generic signature").contains("io.fabric8.kubernetes.api.model.Pod");
        assertThat(ClassRefs.targets(ClassRefs.classesOf(KubePod.class).get(KubePod.class.getName())))
                .as("kube itself reads the Pod (the checker sees it at all)").contains("io.fabric8.kubernetes.api.model.Pod");
    }

    @Test
    void ledgerKnowsNoPolicy_failsOnAViolation_holdsOnCore() {
        var bad = Map.of("io.mpshare.core.ledger.Broken", synthetic("io.mpshare.core.ledger.Broken", "io.mpshare.core.policy.PlacementPolicy", "java.lang.String"));
        assertThat(LEDGER_KNOWS_NO_POLICY.violations(bad)).containsExactly("io.mpshare.core.ledger.Broken refers to io.mpshare.core.policy.PlacementPolicy");

        Map<String, byte[]> core = ClassRefs.classesOf(Ledger.class);
        assertThat(core).containsKey("io.mpshare.core.ledger.Ledger");
        assertThat(LEDGER_KNOWS_NO_POLICY.violations(core)).as(LEDGER_KNOWS_NO_POLICY.what()).isEmpty();
    }

    @Test
    void bindBelowVerbs_failsOnAViolation_holdsOnTheScheduler() {
        var bad = Map.of("io.mpshare.scheduler.bind.Broken", synthetic("io.mpshare.scheduler.bind.Broken",
                "io.mpshare.scheduler.verbs.Verbs", "io.mpshare.scheduler.http.WireReader"));
        assertThat(BIND_BELOW_VERBS.violations(bad)).containsExactlyInAnyOrder(
                "io.mpshare.scheduler.bind.Broken refers to io.mpshare.scheduler.verbs.Verbs",
                "io.mpshare.scheduler.bind.Broken refers to io.mpshare.scheduler.http.WireReader");

        Map<String, byte[]> scheduler = ClassRefs.classesOf(SchedulerExtender.class);
        assertThat(scheduler).containsKey("io.mpshare.scheduler.bind.Binder");
        assertThat(BIND_BELOW_VERBS.violations(scheduler)).as(BIND_BELOW_VERBS.what()).isEmpty();
    }

    @Test
    void onlyKubeReadsPods_failsOnAViolation() {
        var bad = Map.of("io.mpshare.scheduler.cluster.Broken", synthetic("io.mpshare.scheduler.cluster.Broken",
                "java.lang.String", "io.fabric8.kubernetes.api.model.Pod"));
        assertThat(ONLY_KUBE_READS_PODS.violations(bad)).containsExactly("io.mpshare.scheduler.cluster.Broken refers to io.fabric8.kubernetes.api.model.Pod");
        var fixture = ClassRefs.classesOf(PodReadingFixture.class);
        assertThat(ONLY_KUBE_READS_PODS.violations(Map.of(PodReadingFixture.class.getName(), fixture.get(PodReadingFixture.class.getName()))))
                .containsExactly(PodReadingFixture.class.getName() + " refers to io.fabric8.kubernetes.api.model.Pod");
        assertThat(ONLY_KUBE_READS_PODS.violations(ClassRefs.classesOf(KubePod.class))).as("kube is the edge: exempt").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("POD_RULE_MODULES")
    void onlyKubeReadsPods_holdsOn(Module module) {
        Map<String, byte[]> classes = module.classes();
        assertThat(classes).as("compiled classes of " + module).isNotEmpty();
        assertThat(ONLY_KUBE_READS_PODS.violations(classes)).as(ONLY_KUBE_READS_PODS.what() + " in " + module).isEmpty();
    }
}
