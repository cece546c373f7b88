package io.mpshare.e2e.k8s;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The chart as users install it, rendered with helm-java ({@code helm template}), of which the parts that run off the
 * cluster here are applied for real: ServiceAccounts, ClusterRoles, Roles and their bindings. The workloads are not
 * created (no kubelet runs them); their processes are started by {@link Components} under the chart's
 * ServiceAccount identity, and kube-scheduler reads the chart's own {@code scheduler-config.yaml}.
 */
public final class ChartDeployment {
    public static final String RELEASE = "mpshare";
    public static final String NAMESPACE = "mpshare-system";
    /** The scheduler's ServiceAccount, ConfigMap prefix and Deployment: {@code <release>-scheduler}. */
    public static final String SCHEDULER_ACCOUNT = RELEASE + "-scheduler";
    public static final String SCHEDULER_CONFIG_KEY = "scheduler-config.yaml";
    private static final List<Class<? extends HasMetadata>> APPLIED =
            List.of(ServiceAccount.class, ClusterRole.class, ClusterRoleBinding.class, Role.class, RoleBinding.class);

    private final List<HasMetadata> objects;
    private final String text;

    private ChartDeployment(String text, List<HasMetadata> objects) {
        this.text = text;
        this.objects = objects;
    }

    /** {@code helm template mpshare CHART -n mpshare-system --set k=v...}. */
    public static ChartDeployment render(Path chart, Map<String, Object> values) {
        if (!Files.isRegularFile(chart.resolve("Chart.yaml"))) throw new IllegalArgumentException("no Helm chart at " + chart);
        var t = new Helm(chart).template().withName(RELEASE).withNamespace(NAMESPACE);
        values.forEach(t::set);
        String text = t.call();
        var yaml = new KubernetesSerialization();
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : text.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) continue;
            out.add(yaml.unmarshal(doc));
        }
        return new ChartDeployment(text, List.copyOf(out));
    }

    public String text() { return text; }
    public List<HasMetadata> objects() { return objects; }

    /** The objects this harness applies: ServiceAccounts and RBAC. */
    public List<HasMetadata> applied() {
        return objects.stream().filter(o -> APPLIED.stream().anyMatch(c -> c.isInstance(o))).toList();
    }

    /** Creates the release namespace and applies {@link #applied()} (server-side apply: idempotent). */
    public void applyTo(ControlPlane cp) {
        cp.createNamespace(NAMESPACE, Map.of());
        KubernetesClient c = cp.client();
        for (HasMetadata o : applied()) {
            if (o.getMetadata().getNamespace() == null && !(o instanceof ClusterRole) && !(o instanceof ClusterRoleBinding))
                o.getMetadata().setNamespace(NAMESPACE);
            c.resource(o).forceConflicts().serverSideApply();
        }
    }

    /** The chart's KubeSchedulerConfiguration text (ConfigMap {@code mpshare-scheduler-config}, bundled mode). */
    public String schedulerConfig() {
        return objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                .filter(m -> m.getMetadata().getName().equals(SCHEDULER_ACCOUNT + "-config"))
                .map(m -> m.getData().get(SCHEDULER_CONFIG_KEY)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the chart rendered no ConfigMap " + SCHEDULER_ACCOUNT + "-config (scheduler.mode=bundled?)"));
    }
}
