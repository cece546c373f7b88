package io.mpshare.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.Names;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Builds fabric8 {@link Pod}s for tests: {@code Pods.pod("p").gpuMem(7).gpuCore(30).on("n1").build()}.
 * The first container ({@code main}) gets the GPU limits set with {@link #gpuMem}/{@link #gpuCore};
 * more containers with {@link #container} and {@link #initContainer}. Quantities are written as text, so
 * bad ones ({@code "1.5"}, {@code "7Gi"}) can be tested too.
 */
public final class Pods {
    private String name;
    private String namespace = "default";
    private String uid = UUID.randomUUID().toString();
    private String node;
    private String phase = "Pending";
    private Long runAsUser;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final Map<String, String> mainLimits = new LinkedHashMap<>();
    private final Map<String, String> mainRequests = new LinkedHashMap<>();
    private final List<Container> extra = new ArrayList<>();
    private final List<Container> inits = new ArrayList<>();

    private Pods(String name) { this.name = name; }

    public static Pods pod(String name) { return new Pods(name); }

    public Pods namespace(String ns) { this.namespace = ns; return this; }
    public Pods uid(String u) { this.uid = u; return this; }
    /** Bound to {@code node} ({@code spec.nodeName}). */
    public Pods on(String n) { this.node = n; return this; }
    public Pods phase(String p) { this.phase = p; return this; }
    public Pods runAsUser(long u) { this.runAsUser = u; return this; }
    public Pods label(String k, String v) { labels.put(k, v); return this; }
    public Pods annotation(String k, String v) { annotations.put(k, v); return this; }
    public Pods annotations(Map<String, String> m) { annotations.putAll(m); return this; }
    /** {@code aliyun.com/gpu-mem} of the main container, in the cluster's unit (GiB by default). */
    public Pods gpuMem(long units) { return gpuMem(Long.toString(units)); }
    public Pods gpuMem(String quantity) { mainLimits.put(Names.RESOURCE_GPU_MEM, quantity); return this; }
    public Pods gpuCore(int percent) { return gpuCore(Integer.toString(percent)); }
    public Pods gpuCore(String quantity) { mainLimits.put(Names.RESOURCE_GPU_CORE, quantity); return this; }
    /** {@code requests.cpu} of the main container, a Kubernetes quantity ({@code "500m"}, {@code "2"}). */
    public Pods cpu(String quantity) { mainRequests.put(Names.RESOURCE_CPU, quantity); return this; }
    /** {@code requests.memory} of the main container ({@code "512Mi"}, {@code "1Gi"}). */
    public Pods memory(String quantity) { mainRequests.put(Names.RESOURCE_MEMORY, quantity); return this; }
    /** The {@code aliyun.com/gpu-count} label. */
    public Pods gpuCount(int n) { return label(Names.LABEL_GPU_COUNT, Integer.toString(n)); }
    public Pods container(String cname, long gpuMem, int gpuCore) { extra.add(container0(cname, gpuMem, gpuCore)); return this; }
    public Pods initContainer(String cname, long gpuMem, int gpuCore) { inits.add(container0(cname, gpuMem, gpuCore)); return this; }

    private static Container container0(String cname, long mem, int core) {
        var limits = new LinkedHashMap<String, Quantity>();
        if (mem > 0) limits.put(Names.RESOURCE_GPU_MEM, new Quantity(Long.toString(mem)));
        if (core > 0) limits.put(Names.RESOURCE_GPU_CORE, new Quantity(Integer.toString(core)));
        return new ContainerBuilder().withName(cname).withImage("busybox").withNewResources().withLimits(limits).endResources().build();
    }

    public Pod build() {
        var limits = new LinkedHashMap<String, Quantity>();
        mainLimits.forEach((k, v) -> limits.put(k, new Quantity(v)));
        var requests = new LinkedHashMap<String, Quantity>();
        mainRequests.forEach((k, v) -> requests.put(k, new Quantity(v)));
        var main = new ContainerBuilder().withName("main").withImage("busybox").withNewResources().withLimits(limits)
                .withRequests(requests.isEmpty() ? null : requests).endResources().build();
        var cs = new ArrayList<Container>();
        cs.add(main);
        cs.addAll(extra);
        var b = new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid(uid)
                .withLabels(labels.isEmpty() ? null : new LinkedHashMap<>(labels))
                .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations)).endMetadata()
                .withNewSpec().withContainers(cs).withInitContainers(inits.isEmpty() ? null : new ArrayList<>(inits)).withNodeName(node)
                .endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        if (runAsUser != null) b.editSpec().withNewSecurityContext().withRunAsUser(runAsUser).endSecurityContext().endSpec();
        return b.build();
    }
}
