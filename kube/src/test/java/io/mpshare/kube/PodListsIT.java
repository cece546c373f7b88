package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.mpshare.core.model.PodKey;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The LIST reads against the API test server, answering what a server that ignores field selectors would. */
@EnableKubernetesMockClient
class PodListsIT {
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void onNode_asksForTheNode_andKeepsOnlyItsPodsWhereTheServerIgnoresTheSelector() {
        var all = new PodListBuilder().withNewMetadata().endMetadata()
                .addToItems(Pods.pod("p1").namespace("a").on("n1").build(), Pods.pod("p2").namespace("b").on("n1").build(),
                        Pods.pod("p3").namespace("a").on("n2").build(), Pods.pod("pending").namespace("a").build())
                .build();
        server.expect().get().withPath("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1").andReturn(200, all).once();
        server.expect().get().withPath("/api/v1/pods").andReturn(200, all).once();

        assertThat(PodLists.onNode(client, "n1")).extracting(KubePod::key).containsExactly(PodKey.of("a", "p1"), PodKey.of("b", "p2"));
        assertThat(PodLists.all(client)).extracting(KubePod::key).hasSize(4);
    }
}
