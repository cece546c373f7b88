package io.mpshare.inspect;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.core.MemoryUnit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A cluster where no node takes part yet: a node name that matches none says so (API test server, CRUD mode). */
@EnableKubernetesMockClient(crud = true)
class ClusterReaderNoNodesIT {
    KubernetesClient client;

    @Test
    void read_unknownNode_noneLabelled_saysSo() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("cpu-only").endMetadata().build()).create();
        assertThatThrownBy(() -> new ClusterReader(client, MemoryUnit.GIB).read("gpu-node-9"))
                .hasMessage("node gpu-node-9 not found; no node takes part in GPU sharing here (none is labelled ack.node.gpu.schedule=mps)");
    }
}
