package io.mpshare.admission.tls;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Writes the CA bundle into the webhooks of the named Mutating/ValidatingWebhookConfigurations that call our Service.
 * Idempotent: run at start and then periodically, because {@code helm upgrade} may write the chart's copy back.
 */
public final class CaBundlePatcher {
    private static final Logger LOG = Logger.getLogger(CaBundlePatcher.class.getName());

    private final KubernetesClient client;
    private final List<String> mutating, validating;
    private final String service, namespace;

    public CaBundlePatcher(KubernetesClient client, List<String> mutating, List<String> validating, String service, String namespace) {
        this.client = client;
        this.mutating = List.copyOf(mutating);
        this.validating = List.copyOf(validating);
        this.service = service;
        this.namespace = namespace;
    }

    /** Patches every configuration; returns how many webhooks changed. Missing configurations are logged and skipped. */
    public int patch(String caPem) {
        String bundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
        int changed = 0;
        for (String n : mutating)
            changed += patchOne(n, () -> client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(n).get(),
                    c -> c.getWebhooks().stream().map(w -> w.getClientConfig()).toList(), bundle);
        for (String n : validating)
            changed += patchOne(n, () -> client.admissionRegistration().v1().validatingWebhookConfigurations().withName(n).get(),
                    c -> c.getWebhooks().stream().map(w -> w.getClientConfig()).toList(), bundle);
        return changed;
    }

    private <T extends HasMetadata> int patchOne(String name, Supplier<T> get,
                                                 Function<T, List<WebhookClientConfig>> configs, String bundle) {
        for (int attempt = 0; attempt < 5; attempt++) {
            T cfg = get.get();
            if (cfg == null) {
                LOG.warning("webhook configuration " + name + " not found: its caBundle is not set");
                return 0;
            }
            int changed = 0;
            for (WebhookClientConfig cc : configs.apply(cfg)) {
                if (cc == null || !ours(cc.getService()) || bundle.equals(cc.getCaBundle())) continue;
                cc.setCaBundle(bundle);
                changed++;
            }
            if (changed == 0) return 0;
            try {
                client.resource(cfg).update();
                LOG.info("set caBundle of " + changed + " webhook(s) in " + cfg.getKind() + " " + name);
                return changed;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
            }
        }
        throw new IllegalStateException("webhook configuration " + name + " kept changing while its caBundle was patched");
    }

    private boolean ours(ServiceReference ref) {
        return ref != null && Objects.equals(ref.getName(), service) && Objects.equals(ref.getNamespace(), namespace);
    }
}
