package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code e2e/gpu/node-tier.sh} takes from the chart, written as files for a machine that has no Java build: the
 * chart rendered with its default values ({@link ChartDeployment}), of which
 * <ul>
 *   <li>{@code rbac.yaml}: the release namespace and the objects the harness applies (ServiceAccounts, RBAC);</li>
 *   <li>{@code scheduler-config.yaml}: the chart's KubeSchedulerConfiguration, with {@code clientConnection.kubeconfig}
 *       set to {@code @KUBECONFIG@} (the chart's pod reads its ServiceAccount instead);</li>
 *   <li>{@code webhooks.yaml}: the chart's webhook configurations pointed at {@code https://127.0.0.1:<port><path>}
 *       with the given CA as caBundle (the chart's reach the webhook through its Service);</li>
 *   <li>{@code args/<container>}: the arguments of each component's container as the chart renders them, one a
 *       line: {@code kube-scheduler} (its command less the binary), {@code extender}, {@code webhook},
 *       {@code device-plugin}, {@code mps-control} (the blue DaemonSet).</li>
 * </ul>
 * The tier adapts what a host process needs other than a pod (ports, paths, certificate files) the way
 * {@link Components} and {@link Webhooks} do here.
 *
 * <pre>GpuTierManifests CHART_DIR OUT_DIR CA_PEM</pre>
 */
public final class GpuTierManifests {
    static final String KUBECONFIG_PLACEHOLDER = "@KUBECONFIG@";

    private final ChartDeployment chart;
    private final KubernetesSerialization yaml = new KubernetesSerialization();

    GpuTierManifests(ChartDeployment chart) {
        this.chart = chart;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: GpuTierManifests CHART_DIR OUT_DIR CA_PEM");
            System.exit(2);
        }
        Path out = Path.of(args[1]);
        Files.createDirectories(out.resolve("args"));
        var m = new GpuTierManifests(ChartDeployment.render(Path.of(args[0]), Map.of()));
        String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(args[2])));
        Files.writeString(out.resolve("rbac.yaml"), m.rbac());
        Files.writeString(out.resolve("scheduler-config.yaml"), m.schedulerConfig());
        Files.writeString(out.resolve("webhooks.yaml"), m.webhooks(ca));
        for (var e : m.args().entrySet()) Files.writeString(out.resolve("args").resolve(e.getKey()), String.join("\n", e.getValue()) + "\n");
        System.out.println("GpuTierManifests: wrote " + out);
    }

    /** The release namespace, then the ServiceAccounts and RBAC objects, namespaced as the chart installs them. */
    String rbac() {
        List<String> docs = new ArrayList<>();
        docs.add(yaml.asYaml(new NamespaceBuilder().withNewMetadata().withName(ChartDeployment.NAMESPACE).endMetadata().build()));
        for (HasMetadata o : chart.applied()) {
            if (o.getMetadata().getNamespace() == null && !(o instanceof ClusterRole) && !(o instanceof ClusterRoleBinding))
                o.getMetadata().setNamespace(ChartDeployment.NAMESPACE);
            docs.add(yaml.asYaml(o));
        }
        return String.join("", docs);
    }

    @SuppressWarnings("unchecked")
    String schedulerConfig() {
        Map<String, Object> conf = yaml.unmarshal(chart.schedulerConfig(), LinkedHashMap.class);
        conf.put("clientConnection", Map.of("kubeconfig", KUBECONFIG_PLACEHOLDER));
        return yaml.asYaml(conf);
    }

    /** The chart's webhook configurations, each entry pointed at the webhook's port on 127.0.0.1. */
    String webhooks(String caBundle) {
        int port = Integer.parseInt(argValue(container(Deployment.class, "webhook"), "--port="));
        List<String> docs = new ArrayList<>();
        for (HasMetadata o : chart.objects()) {
            if (o instanceof MutatingWebhookConfiguration w) {
                w.getWebhooks().forEach(h -> h.setClientConfig(Webhooks.local(h.getClientConfig(), port, caBundle)));
                docs.add(yaml.asYaml(w));
            } else if (o instanceof ValidatingWebhookConfiguration w) {
                w.getWebhooks().forEach(h -> h.setClientConfig(Webhooks.local(h.getClientConfig(), port, caBundle)));
                docs.add(yaml.asYaml(w));
            }
        }
        return String.join("", docs);
    }

    Map<String, List<String>> args() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        List<String> scheduler = container(Deployment.class, "kube-scheduler").getCommand();
        out.put("kube-scheduler", scheduler.subList(1, scheduler.size()));
        out.put("extender", container(Deployment.class, "extender").getArgs());
        out.put("webhook", container(Deployment.class, "webhook").getArgs());
        out.put("device-plugin", container(DaemonSet.class, "device-plugin").getArgs());
        out.put("mps-control", chart.objects().stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
                .filter(d -> d.getMetadata().getName().endsWith("-mps-control-blue"))
                .map(d -> d.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs()).findFirst()
                .orElseThrow(() -> new IllegalStateException("the chart rendered no blue mps-control DaemonSet")));
        return out;
    }

    private Container container(Class<? extends HasMetadata> kind, String name) {
        return chart.objects().stream().filter(kind::isInstance).map(GpuTierManifests::podSpec)
                .flatMap(s -> s.getContainers().stream()).filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the chart rendered no container " + name + " in a " + kind.getSimpleName()));
    }

    private static PodSpec podSpec(HasMetadata o) {
        return switch (o) {
            case Deployment d -> d.getSpec().getTemplate().getSpec();
            case DaemonSet d -> d.getSpec().getTemplate().getSpec();
            default -> throw new IllegalArgumentException("no pod template in " + o.getKind());
        };
    }

    private static String argValue(Container c, String prefix) {
        return c.getArgs().stream().filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new IllegalStateException("container " + c.getName() + " has no " + prefix));
    }

}
