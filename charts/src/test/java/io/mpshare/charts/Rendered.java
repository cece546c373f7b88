package io.mpshare.charts;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** One `helm template` of the chart, parsed into fabric8 objects (CRDs such as ServiceMonitor as generic resources). */
final class Rendered {
    static final Path CHART = Path.of("mpshare");
    static final String RELEASE = "mpshare";
    static final String NAMESPACE = "mpshare-system";
    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    final String text;
    final List<HasMetadata> objects;

    private Rendered(String text) {
        this.text = text;
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : text.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) continue;
            out.add(YAML.unmarshal(doc));
        }
        this.objects = List.copyOf(out);
    }

    /** Renders with {@code --set key=value} for each pair. */
    static Rendered of(Map<String, Object> values) {
        var t = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE);
        values.forEach(t::set);
        return new Rendered(t.call());
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends HasMetadata> T one(Class<T> type, String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in:\n" + names()));
    }

    boolean has(String kind, String name) {
        return objects.stream().anyMatch(o -> o.getKind().equals(kind) && o.getMetadata().getName().equals(name));
    }

    List<String> names() { return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList(); }

    /** Every pod template of every workload, with the workload's name. */
    Stream<Map.Entry<String, PodSpec>> podSpecs() {
        Stream<Map.Entry<String, PodSpec>> ds = all(DaemonSet.class).stream().map(d -> Map.entry(d.getMetadata().getName(), d.getSpec().getTemplate().getSpec()));
        Stream<Map.Entry<String, PodSpec>> dep = all(Deployment.class).stream().map(d -> Map.entry(d.getMetadata().getName(), d.getSpec().getTemplate().getSpec()));
        return Stream.concat(ds, dep);
    }

    static Container container(PodSpec spec, String name) {
        return spec.getContainers().stream().filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name));
    }
}
