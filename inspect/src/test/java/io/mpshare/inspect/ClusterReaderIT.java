package io.mpshare.inspect;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.model.NodeInventory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reads nodes and pods from the API test server (CRUD mode), as {@code kubectl mpshare inspect} does. */
@EnableKubernetesMockClient(crud = true)
class ClusterReaderIT {
    KubernetesClient client;

    @BeforeEach
    void cluster() {
        if (client.nodes().withName("gpu-a").get() != null) return; // the test server lives for the whole class
        node(Fixtures.nodeA());
        node(Fixtures.nodeB());
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("cpu-only").endMetadata().build()).create();
        var sample = AllocationCodec.encode(Fixtures.sample(), MemoryUnit.GIB);
        pod("default", "mps-sample", "gpu-a", Map.of(), sample, UsageCodec.encode(Fixtures.sampleUsage()), "Running");
        pod("team", "wide", "gpu-a", Map.of(), AllocationCodec.encode(Fixtures.wide(), MemoryUnit.GIB), null, "Running");
        pod("team", "done", "gpu-a", Map.of(), sample, null, "Succeeded");
        pod("team", "plain", "gpu-a", Map.of(), Map.of(), null, "Running");
        // placed by ACK gpushare: only its v1 annotations, 4 GiB on GPU 1
        pod("legacy", "gpushare-pod", "gpu-a", Map.of(), Map.of(Names.ACK_GPU_MEM_IDX, "1", Names.ACK_GPU_MEM_POD, "4"), null, "Running");
        pod("team", "broken", "gpu-b", Map.of(), Map.of(Names.ANN_ALLOCATION, "v1;node=gpu-b;gpus=x"), null, "Running");
    }

    private void node(NodeInventory inv) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(inv.node())
                .addToLabels(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS)
                .addToAnnotations(Names.ANN_NODE_GPUS, InventoryCodec.encode(inv)).endMetadata().build()).create();
    }

    private void pod(String ns, String name, String node, Map<String, String> labels, Map<String, String> ann, String usage, String phase) {
        var b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).withLabels(labels).withAnnotations(ann).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("main").withImage("x")
                .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("4")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        Pod p = b.build();
        if (usage != null) p.getMetadata().getAnnotations().put(Names.ANN_USAGE, usage);
        client.pods().inNamespace(ns).resource(p).create();
    }

    @Test
    void read_allNodes_accountsOursAndGpushares_skipsFinishedAndPlain() {
        GpuReport r = new ClusterReader(client, MemoryUnit.GIB).read(null);
        assertThat(r.nodes()).extracting(GpuReport.NodeRow::name).containsExactly("gpu-a", "gpu-b");
        var a = r.nodes().getFirst();
        assertThat(a.gpus().get(0).pods()).extracting(p -> p.pod().toString()).containsExactly("default/mps-sample", "team/wide");
        assertThat(a.gpus().get(1).pods()).extracting(p -> p.pod().toString()).containsExactly("legacy/gpushare-pod", "team/wide");
        assertThat(a.gpus().get(0).usedMib()).hasValue(6144);
        assertThat(r.problems()).singleElement().asString().contains("team/broken");
        String table = new ReportRenderer(MemoryUnit.GIB).table(r, true);
        assertThat(table).contains("legacy/gpushare-pod").contains("Allocated/Total GPU memory in cluster: 20.5/295.8 GiB (7%), used 6 GiB; 2 node(s), 3 GPU(s), 3 pod(s)");
    }

    @Test
    void read_oneNode_onlyThatNode() {
        GpuReport r = new ClusterReader(client, MemoryUnit.GIB).read("gpu-b");
        assertThat(r.nodes()).extracting(GpuReport.NodeRow::name).containsExactly("gpu-b");
    }

    @Test
    void read_nodeWithoutInventory_saysWhy() {
        GpuReport r = new ClusterReader(client, MemoryUnit.GIB).read("cpu-only");
        assertThat(r.nodes()).isEmpty();
        assertThat(r.problems()).singleElement().asString().contains("is the mpshare device plugin running there?");
    }

    @Test
    void read_unknownNode_failsNamingTheNodesThatTakePart() {
        assertThatThrownBy(() -> new ClusterReader(client, MemoryUnit.GIB).read("nope"))
                .hasMessage("node nope not found; the nodes labelled ack.node.gpu.schedule=mps: gpu-a, gpu-b");
    }
}
