package io.mpshare.charts;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.mpshare.core.Names;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * templates/tenant-annotations-policy.yaml (docs/decisions/tenant-annotations.md): what it matches, whom it lets write,
 * and that its keys are the ones the code reads. The real apiserver's verdicts are e2e/k8s TenantWritesIT's.
 */
class TenantAnnotationsChartTest {
    static final String NAME = Rendered.RELEASE + "-tenant-annotations";
    static final String DEVICE_PLUGIN = "system:serviceaccount:" + Rendered.NAMESPACE + ":" + Rendered.RELEASE + "-device-plugin";

    private static String variable(ValidatingAdmissionPolicy p, String name) {
        return p.getSpec().getVariables().stream().filter(v -> v.getName().equals(name)).map(Variable::getExpression).findFirst().orElseThrow();
    }

    @Test
    void defaults_podCreateAndUpdate_everyoneButTheDevicePlugin_boundToDeny() {
        Rendered r = Rendered.of(Map.of());
        ValidatingAdmissionPolicy p = r.one(ValidatingAdmissionPolicy.class, NAME);
        assertThat(p.getSpec().getFailurePolicy()).isEqualTo("Fail");
        NamedRuleWithOperations rule = p.getSpec().getMatchConstraints().getResourceRules().getFirst();
        assertThat(rule.getOperations()).containsExactly("CREATE", "UPDATE");
        assertThat(rule.getResources()).as("the Binding (pods/binding) is the extender's write and is not matched").containsExactly("pods", "pods/status");
        assertThat(p.getSpec().getMatchConditions()).singleElement().satisfies(c ->
                assertThat(c.getExpression()).isEqualTo("!(request.userInfo.username in ['" + DEVICE_PLUGIN + "'])"));
        assertThat(r.one(ValidatingAdmissionPolicyBinding.class, NAME).getSpec().getValidationActions()).containsExactly("Deny");
    }

    @Test
    void keys_theOnesTheCodeReadsAndTheContextReserveAtCreate() {
        ValidatingAdmissionPolicy p = Rendered.of(Map.of()).one(ValidatingAdmissionPolicy.class, NAME);
        assertThat(variable(p, "ours")).contains("'" + Names.ANNOTATION_PREFIX + "'", "'" + Names.ACK_ANNOTATION_PREFIX + "'",
                "request.operation == 'CREATE' && k == '" + Names.ANN_CONTEXT_RESERVE + "'");
        assertThat(Names.ACK_GPU_MEM_IDX).startsWith(Names.ACK_ANNOTATION_PREFIX);
        assertThat(variable(p, "doors")).contains("k.startsWith('" + Names.CDI_ANNOTATION_PREFIX + "')",
                "!(request.namespace in ['kube-system', '" + Rendered.NAMESPACE + "', 'gpu-operator'])");
        assertThat(p.getSpec().getValidations()).extracting(v -> v.getExpression())
                .containsExactly("size(variables.ours) == 0", "size(variables.doors) == 0");
    }

    @Test
    void extraWriters_addedToTheDevicePlugin() {
        Rendered r = Rendered.of(Map.of("tenantAnnotations.extraWriters[0]", "system:serviceaccount:kube-system:gpushare-schd-extender"));
        assertThat(r.one(ValidatingAdmissionPolicy.class, NAME).getSpec().getMatchConditions().getFirst().getExpression())
                .isEqualTo("!(request.userInfo.username in ['" + DEVICE_PLUGIN + "', 'system:serviceaccount:kube-system:gpushare-schd-extender'])");
    }

    @Test
    void protectOff_noPolicy() {
        Rendered r = Rendered.of(Map.of("tenantAnnotations.protect", "false"));
        assertThat(r.all(ValidatingAdmissionPolicy.class)).noneMatch(p -> p.getMetadata().getName().equals(NAME));
        assertThat(r.all(ValidatingAdmissionPolicyBinding.class)).noneMatch(b -> b.getMetadata().getName().equals(NAME));
    }
}
