package io.mpshare.upgrade.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodLists;
import io.mpshare.upgrade.plan.Client;
import io.mpshare.upgrade.plan.DaemonPod;
import io.mpshare.upgrade.plan.NodeSnapshot;
import io.mpshare.upgrade.plan.Step;
import io.mpshare.upgrade.plan.UpgradeState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one node's {@link NodeSnapshot} and carries out {@link Step}s, over fabric8.
 *
 * <ul>
 * <li>MPS daemons: DaemonSets labelled {@code mpshare.io/colour} whose pod template carries
 *     {@code app.aliyun.com/name=mps-control-daemon} and whose nodeSelector matches the node; their pods on the node.
 *     A pod is current when its containers' images are those of its DaemonSet's template (OnDelete keeps old pods on
 *     the old template), Ready from its Ready condition (the chart's readiness probe follows the supervisor's marker).</li>
 * <li>Clients: pods on the node, not Succeeded/Failed, with an mpshare (or ACK gpushare) allocation, started
 *     ({@code mpshare.io/assigned=true}, the ACK twin, or Running); their colour from {@code mpshare.io/mps-colour},
 *     which the device plugin writes with {@code assigned}. No exec into the daemon: the API server alone tells.</li>
 * <li>Writes: JSON merge patches on the Node (annotations and {@code spec.unschedulable} together in one call),
 *     pod delete for a daemon restart, the Eviction API for clients (a 429 from a PodDisruptionBudget is retried later).</li>
 * </ul>
 */
public final class KubeNode implements AutoCloseable {
    private final KubernetesClient client;
    private final String namespace;
    /**
     * Evictions go through a client that does not retry: fabric8 retries a 429 with backoff for about a minute and a
     * half inside {@code evict()}, which would stall the loop; a refused eviction is simply tried again next poll.
     */
    private final KubernetesClient evictions;

    /** @param namespace where the MPS DaemonSets live, or null for any namespace */
    public KubeNode(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        this.evictions = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build()).build();
    }

    @Override public void close() { evictions.close(); }

    public NodeSnapshot snapshot(String nodeName, Instant now) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) throw new IllegalArgumentException("node " + nodeName + " not found");
        Map<String, String> ann = node.getMetadata().getAnnotations() == null ? Map.of() : node.getMetadata().getAnnotations();
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, DaemonSet> sets = daemonSets(labels);
        var daemons = new ArrayList<DaemonPod>();
        var clients = new ArrayList<Client>();
        for (KubePod p : PodLists.onNode(client, nodeName)) {
            Map<String, String> pl = p.labels();
            if (Names.MPS_DAEMON_POD_LABEL_VALUE.equals(pl.get(Names.MPS_DAEMON_POD_LABEL)) && pl.containsKey(Names.LABEL_MPS_COLOUR)) {
                String colour = pl.get(Names.LABEL_MPS_COLOUR);
                daemons.add(new DaemonPod(p.key().namespace(), p.key().name(), colour, p.ready(),
                        current(p, sets.get(colour)), p.deleting(), String.join(",", p.images())));
            } else {
                client(p).ifPresent(clients::add);
            }
        }
        return new NodeSnapshot(nodeName, ann.get(Names.ANN_NODE_MPS_ACTIVE),
                Boolean.TRUE.equals(node.getSpec() == null ? null : node.getSpec().getUnschedulable()),
                UpgradeState.decode(ann.get(Names.ANN_NODE_UPGRADE)), templates(sets), daemons, clients, now);
    }

    /** Carries out an action step; {@link Step.Wait}, {@link Step.Blocked} and {@link Step.TimedOut} do nothing. */
    public List<String> apply(String nodeName, Step step) {
        var notes = new ArrayList<String>();
        switch (step) {
            case Step.Record r -> patchNode(nodeName, annotations(Map.of(Names.ANN_NODE_UPGRADE, r.state().encode())), null);
            case Step.Switch sw -> patchNode(nodeName, annotations(Map.of(Names.ANN_NODE_MPS_ACTIVE, sw.to(),
                    Names.ANN_NODE_UPGRADE, sw.state().encode())), null);
            case Step.Cordon c -> patchNode(nodeName, annotations(Map.of(Names.ANN_NODE_UPGRADE, c.state().encode())), Boolean.TRUE);
            case Step.Finish f -> patchNode(nodeName, "\"" + Names.ANN_NODE_UPGRADE + "\":null", f.uncordon() ? Boolean.FALSE : null);
            case Step.RestartDaemon d -> client.pods().inNamespace(d.pod().namespace()).withName(d.pod().name()).delete();
            case Step.Evict e -> {
                for (PodKey k : e.pods()) {
                    boolean evicted = evictions.pods().inNamespace(k.namespace()).withName(k.name()).evict();
                    if (!evicted) notes.add("eviction of " + k + " refused (a PodDisruptionBudget); retried");
                }
            }
            case Step.Wait w -> { }
            case Step.Blocked b -> { }
            case Step.TimedOut t -> { }
        }
        return notes;
    }

    /** Nodes labelled {@code ack.node.gpu.schedule=mps}, by name. */
    public List<String> mpsNodes() {
        return client.nodes().withLabel(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS).list().getItems().stream()
                .map(n -> n.getMetadata().getName()).sorted().toList();
    }

    private Map<String, DaemonSet> daemonSets(Map<String, String> nodeLabels) {
        var list = namespace == null ? client.apps().daemonSets().inAnyNamespace().withLabel(Names.LABEL_MPS_COLOUR).list()
                : client.apps().daemonSets().inNamespace(namespace).withLabel(Names.LABEL_MPS_COLOUR).list();
        var out = new HashMap<String, DaemonSet>();
        for (DaemonSet ds : list.getItems()) {
            var tpl = ds.getSpec().getTemplate();
            Map<String, String> tl = tpl.getMetadata() == null || tpl.getMetadata().getLabels() == null ? Map.of() : tpl.getMetadata().getLabels();
            if (!Names.MPS_DAEMON_POD_LABEL_VALUE.equals(tl.get(Names.MPS_DAEMON_POD_LABEL))) continue;
            Map<String, String> sel = tpl.getSpec().getNodeSelector() == null ? Map.of() : tpl.getSpec().getNodeSelector();
            if (!sel.entrySet().stream().allMatch(e -> e.getValue().equals(nodeLabels.get(e.getKey())))) continue;
            out.put(ds.getMetadata().getLabels().get(Names.LABEL_MPS_COLOUR), ds);
        }
        return out;
    }

    private static Map<String, String> templates(Map<String, DaemonSet> sets) {
        var out = new HashMap<String, String>();
        sets.forEach((colour, ds) -> out.put(colour, images(ds.getSpec().getTemplate().getSpec().getContainers())));
        return out;
    }

    private static Optional<Client> client(KubePod p) {
        if (p.finished()) return Optional.empty();
        Map<String, String> a = p.annotations();
        if (!a.containsKey(Names.ANN_ALLOCATION) && !a.containsKey(Names.ACK_GPU_MEM_IDX)) return Optional.empty();
        boolean started = "true".equals(a.get(Names.ANN_ASSIGNED)) || "true".equals(a.get(Names.ACK_GPU_MEM_ASSIGNED)) || p.running();
        if (!started) return Optional.empty();
        Set<String> colours = new HashSet<>();
        String rec = a.get(Names.ANN_MPS_COLOUR);
        if (rec != null) for (String c : rec.split(",")) if (!c.isBlank()) colours.add(c.trim());
        return Optional.of(new Client(p.key(), colours, p.deleting()));
    }

    private static boolean current(KubePod p, DaemonSet ds) {
        if (ds == null) return false;
        List<KubePod.Owner> owners = p.owners();
        if (!owners.isEmpty() && owners.stream().noneMatch(o -> "DaemonSet".equals(o.kind()) && ds.getMetadata().getName().equals(o.name())))
            return false;
        return Objects.equals(String.join(",", p.images()), images(ds.getSpec().getTemplate().getSpec().getContainers()));
    }

    private static String images(List<Container> cs) {
        return cs == null ? "" : String.join(",", cs.stream().map(Container::getImage).toList());
    }

    private String annotations(Map<String, String> kv) {
        var sb = new StringBuilder();
        kv.forEach((k, v) -> {
            if (!sb.isEmpty()) sb.append(',');
            sb.append(client.getKubernetesSerialization().asJson(k)).append(':').append(client.getKubernetesSerialization().asJson(v));
        });
        return sb.toString();
    }

    /** One JSON merge patch: these annotation members and, unless null, {@code spec.unschedulable}. */
    private void patchNode(String nodeName, String annotationMembers, Boolean unschedulable) {
        String json = "{\"metadata\":{\"annotations\":{" + annotationMembers + "}}"
                + (unschedulable == null ? "" : ",\"spec\":{\"unschedulable\":" + unschedulable + "}") + "}";
        client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }
}
