package io.mpshare.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.core.model.PodKey;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The pod informer against the API test server (CRUD mode): every handler sees each event as one {@link KubePod}. */
@EnableKubernetesMockClient(crud = true)
class PodInformerIT {
    KubernetesClient client;

    /** A handler that records "name+pod" for an upsert and "name-pod" for a deletion, and counts {@code events} down. */
    private static PodEvents recording(String name, List<String> seen, CountDownLatch events) {
        return new PodEvents() {
            @Override public void upserted(KubePod pod) { seen.add(name + "+" + pod.key().name()); events.countDown(); }
            @Override public void deleted(KubePod pod) { seen.add(name + "-" + pod.key().name()); events.countDown(); }
        };
    }

    @Test
    void events_firstListAndDeletion_reachEveryHandlerInOrder_pastOneThatThrows() throws Exception {
        client.pods().inNamespace("a").resource(Pods.pod("p1").namespace("a").on("n1").gpuMem(4).phase("Running").build()).create();
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch events = new CountDownLatch(4);
        try (var informer = new PodInformer(client)) {
            informer.add(recording("first", seen, events));
            informer.add(new PodEvents() {
                @Override public void upserted(KubePod pod) { throw new IllegalStateException("a broken handler"); }
                @Override public void deleted(KubePod pod) { throw new IllegalStateException("a broken handler"); }
            });
            informer.add(recording("last", seen, events));
            informer.start().get(30, TimeUnit.SECONDS);
            assertThat(informer.hasSynced()).isTrue();
            assertThat(informer.get(PodKey.of("a", "p1")).nodeName()).isEqualTo("n1");
            assertThat(informer.get(PodKey.of("a", "absent"))).isNull();
            assertThat(informer.list()).extracting(KubePod::key).containsExactly(PodKey.of("a", "p1"));

            client.pods().inNamespace("a").withName("p1").delete();
            assertThat(events.await(30, TimeUnit.SECONDS)).as("the watch delivered the deletion").isTrue();
            assertThat(new ArrayList<>(seen)).containsExactly("first+p1", "last+p1", "first-p1", "last-p1");
            assertThat(informer.size()).isZero();
        }
    }
}
