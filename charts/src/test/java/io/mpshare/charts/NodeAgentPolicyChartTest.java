package io.mpshare.charts;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** templates/node-agent-policy.yaml and the device plugin's RBAC (docs/decisions/node-agent-least-privilege.md); the real apiserver's verdicts are e2e/k8s NodeAgentLeastPrivilegeIT's. */
class NodeAgentPolicyChartTest {
    static final String NAME = Rendered.RELEASE + "-device-plugin";

    @Test
    void defaults_policyForTheDevicePluginAccount_boundToDeny() {
        Rendered r = Rendered.of(Map.of());
        ValidatingAdmissionPolicy p = r.one(ValidatingAdmissionPolicy.class, NAME + "-own-node");
        assertThat(p.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(p.getSpec().getMatchConditions()).singleElement().satisfies(c ->
                assertThat(c.getExpression()).contains("'system:serviceaccount:" + Rendered.NAMESPACE + ":" + NAME + "'"));
        assertThat(r.one(ValidatingAdmissionPolicyBinding.class, NAME + "-own-node").getSpec().getValidationActions()).containsExactly("Deny");
        ClusterRole role = r.one(ClusterRole.class, NAME);
        assertThat(role.getRules()).noneMatch(rule -> rule.getResources().contains("pods/eviction"));
        assertThat(role.getRules()).anyMatch(rule -> rule.getResources().contains("pods") && rule.getVerbs().contains("delete"));
    }

    @Test
    void leastPrivilegeOff_noPolicy() {
        Rendered r = Rendered.of(Map.of("devicePlugin.leastPrivilege", "false"));
        assertThat(r.all(ValidatingAdmissionPolicy.class)).noneMatch(p -> p.getMetadata().getName().equals(NAME + "-own-node"));
        assertThat(r.all(ValidatingAdmissionPolicyBinding.class)).noneMatch(b -> b.getMetadata().getName().equals(NAME + "-own-node"));
    }
}
