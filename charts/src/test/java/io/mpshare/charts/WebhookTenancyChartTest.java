package io.mpshare.charts;

import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.mpshare.core.Names;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The webhook's tenancy wiring in the chart: each namespace reaches exactly one entry (strict or trusted) by its
 * {@code mpshare.io/tenancy} label, ephemeral containers are sent too, and the opt-in UID default.
 */
class WebhookTenancyChartTest {
    static Rendered defaults, trustedByDefault;
    static final String NAME = ChartTest.FULL + "-webhook";

    @BeforeAll
    static void render() {
        defaults = Rendered.of(Map.of());
        trustedByDefault = Rendered.of(Map.of("tenancy.default", "trusted", "tenancy.defaultRunAsUser", "1000"));
    }

    private static LabelSelectorRequirement tenancy(ValidatingWebhook w) {
        return w.getNamespaceSelector().getMatchExpressions().stream().filter(e -> e.getKey().equals(Names.LABEL_TENANCY)).findFirst().orElseThrow();
    }

    @Test
    void validating_strictByDefault_twoEntriesSplitByTheLabel() {
        List<ValidatingWebhook> ws = defaults.one(ValidatingWebhookConfiguration.class, NAME).getWebhooks();
        assertThat(ws).extracting(w -> w.getClientConfig().getService().getPath()).containsExactly("/validate", "/validate/trusted");
        assertThat(tenancy(ws.get(0)).getOperator()).isEqualTo("NotIn");
        assertThat(tenancy(ws.get(0)).getValues()).containsExactly(Names.TENANCY_TRUSTED);
        assertThat(tenancy(ws.get(1)).getOperator()).isEqualTo("In");
        assertThat(tenancy(ws.get(1)).getValues()).containsExactly(Names.TENANCY_TRUSTED);
    }

    @Test
    void validating_ephemeralContainersSubresource_registeredForUpdate() {
        for (ValidatingWebhook w : defaults.one(ValidatingWebhookConfiguration.class, NAME).getWebhooks()) {
            assertThat(w.getRules()).anySatisfy(r -> {
                assertThat(r.getResources()).containsExactly("pods/ephemeralcontainers");
                assertThat(r.getOperations()).containsExactly("UPDATE");
            });
            assertThat(w.getRules()).anySatisfy(r -> assertThat(r.getResources()).containsExactly("pods"));
        }
    }

    @Test
    void webhookArgs_acceptOnlyMpsharesScheduler_noUidDefaultUnlessAsked() {
        var args = Rendered.container(defaults.one(Deployment.class, NAME).getSpec().getTemplate().getSpec(), "webhook").getArgs();
        assertThat(args).contains("--accepted-scheduler=" + Names.SCHEDULER_NAME).noneMatch(a -> a.startsWith("--default-run-as-user"));
    }

    @Test
    void trustedByDefault_strictEntryTakesOnlyStrictLabelledNamespaces_andDefaultsTheUid() {
        List<ValidatingWebhook> ws = trustedByDefault.one(ValidatingWebhookConfiguration.class, NAME).getWebhooks();
        assertThat(tenancy(ws.get(0)).getOperator()).isEqualTo("In");
        assertThat(tenancy(ws.get(0)).getValues()).containsExactly(Names.TENANCY_STRICT);
        assertThat(tenancy(ws.get(1)).getOperator()).isEqualTo("NotIn");
        var m = trustedByDefault.one(MutatingWebhookConfiguration.class, NAME).getWebhooks();
        assertThat(m).extracting(w -> w.getClientConfig().getService().getPath()).containsExactly("/mutate", "/mutate/trusted");
        var args = Rendered.container(trustedByDefault.one(Deployment.class, NAME).getSpec().getTemplate().getSpec(), "webhook").getArgs();
        assertThat(args).contains("--default-run-as-user=1000", "--default-run-as-group=1000");
    }
}
