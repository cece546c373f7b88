package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * {@code mpshare webhook} as the chart runs it, on loopback: the chart's webhook arguments with a serving certificate
 * for 127.0.0.1 from the harness CA (the chart's "mounted certificate" mode), as the chart's webhook ServiceAccount;
 * and the chart's Mutating/ValidatingWebhookConfigurations, renamed per instance, pointed at
 * {@code https://127.0.0.1:PORT<path>} with the harness CA as caBundle and limited to the given namespaces, so other test
 * classes' pods do not pass through it.
 */
public final class Webhooks {
    private static final String NAME_LABEL = "kubernetes.io/metadata.name";
    private final ControlPlane cp;
    private final ChartDeployment chart;
    private final Path jar;

    /** A started webhook: its process, port and the configurations created for it. */
    public record Webhook(ManagedProcess process, int port, List<String> configurations) {}

    public Webhooks(ControlPlane cp, ChartDeployment chart, Path jar) {
        this.cp = cp;
        this.chart = chart;
        this.jar = jar;
    }

    /** Starts the webhook for pods of {@code namespace} (null: every namespace the chart's selectors admit), setting {@code schedulerName} on shared-GPU pods. */
    public Webhook start(String name, String namespace, String schedulerName, Path logDir) {
        return startIn(name, namespace == null ? null : List.of(namespace), schedulerName, logDir);
    }

    /** {@link #start(String, String, String, Path)} for pods of any of {@code namespaces} (null: every namespace the chart's selectors admit). */
    public Webhook startIn(String name, List<String> namespaces, String schedulerName, Path logDir) {
        Deployment d = chart.objects().stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .filter(x -> x.getSpec().getTemplate().getSpec().getContainers().stream().anyMatch(c -> c.getName().equals("webhook")))
                .findFirst().orElseThrow(() -> new IllegalStateException("the chart rendered no webhook Deployment (webhook.enabled?)"));
        Container c = d.getSpec().getTemplate().getSpec().getContainers().stream().filter(x -> x.getName().equals("webhook")).findFirst().orElseThrow();
        String account = d.getSpec().getTemplate().getSpec().getServiceAccountName();
        int port = ControlPlane.freePort();
        String certName = "webhook-" + name;
        cp.pki().serving(certName, List.of());
        List<String> cmd = new ArrayList<>(List.of(Components.javaBin(), "-Xmx256m", "-jar", jar.toString()));
        for (String a : c.getArgs()) {
            if (a.startsWith("--tls-secret=") || a.startsWith("--mutating-webhook-configuration=") || a.startsWith("--validating-webhook-configuration=")
                    || a.startsWith("--tls-cert-file=") || a.startsWith("--tls-key-file=")) continue;
            if (a.startsWith("--port=")) a = "--port=" + port;
            else if (a.startsWith("--scheduler-name=")) a = "--scheduler-name=" + schedulerName;
            cmd.add(a);
        }
        cmd.add("--accepted-scheduler=" + schedulerName); // the chart accepts its own profile; this one is the test's
        cmd.addAll(List.of("--tls-cert-file=" + cp.pki().certFile(certName), "--tls-key-file=" + cp.pki().keyFile(certName),
                "--tls-ca-file=" + cp.pki().caFile()));
        Path kubeconfig = cp.kubeconfigForServiceAccount(ChartDeployment.NAMESPACE, account);
        ManagedProcess p = cp.spawn(name, cmd, Map.of("KUBECONFIG", kubeconfig.toString()), logDir);
        cp.waitFor("webhook " + name + " on :" + port, p, () -> ControlPlane.portOpen(port));
        List<String> configs = register(name, namespaces, port);
        return new Webhook(p, port, configs);
    }

    private List<String> register(String name, List<String> namespaces, int port) {
        KubernetesClient k = cp.client();
        String ca = Base64.getEncoder().encodeToString(cp.pki().caPem().getBytes(StandardCharsets.UTF_8));
        List<String> names = new ArrayList<>();
        for (var o : chart.objects()) {
            if (o instanceof MutatingWebhookConfiguration m) {
                var copy = k.getKubernetesSerialization().clone(m);
                copy.getMetadata().setName(m.getMetadata().getName() + "-" + name);
                for (var w : copy.getWebhooks()) {
                    w.setClientConfig(local(w.getClientConfig(), port, ca));
                    w.setNamespaceSelector(only(w.getNamespaceSelector(), namespaces));
                }
                k.resource(copy).forceConflicts().serverSideApply();
                names.add("MutatingWebhookConfiguration/" + copy.getMetadata().getName());
            } else if (o instanceof ValidatingWebhookConfiguration v) {
                var copy = k.getKubernetesSerialization().clone(v);
                copy.getMetadata().setName(v.getMetadata().getName() + "-" + name);
                for (var w : copy.getWebhooks()) {
                    w.setClientConfig(local(w.getClientConfig(), port, ca));
                    w.setNamespaceSelector(only(w.getNamespaceSelector(), namespaces));
                }
                k.resource(copy).forceConflicts().serverSideApply();
                names.add("ValidatingWebhookConfiguration/" + copy.getMetadata().getName());
            }
        }
        return List.copyOf(names);
    }

    /** Deletes the webhook's configurations, then stops it. */
    public void stop(Webhook w) {
        KubernetesClient k = cp.client();
        for (String n : w.configurations()) {
            String name = n.substring(n.indexOf('/') + 1);
            if (n.startsWith("Mutating")) k.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name).delete();
            else k.admissionRegistration().v1().validatingWebhookConfigurations().withName(name).delete();
        }
        cp.stop(w.process());
    }

    /** The chart's client config pointed at {@code https://127.0.0.1:PORT<the service path>} with {@code ca} as caBundle. */
    static WebhookClientConfig local(WebhookClientConfig c, int port, String ca) {
        String path = c.getService() != null && c.getService().getPath() != null ? c.getService().getPath() : "/";
        var out = new WebhookClientConfig();
        out.setUrl("https://127.0.0.1:" + port + path);
        out.setCaBundle(ca);
        return out;
    }

    private static LabelSelector only(LabelSelector s, List<String> namespaces) {
        if (namespaces == null) return s;
        LabelSelector out = s == null ? new LabelSelector() : s;
        List<LabelSelectorRequirement> reqs = new ArrayList<>(out.getMatchExpressions() == null ? List.of() : out.getMatchExpressions());
        reqs.add(new LabelSelectorRequirement(NAME_LABEL, "In", List.copyOf(namespaces)));
        out.setMatchExpressions(reqs);
        return out;
    }
}
