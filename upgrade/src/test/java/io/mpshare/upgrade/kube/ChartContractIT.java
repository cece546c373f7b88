package io.mpshare.upgrade.kube;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.Names;
import io.mpshare.testing.Nodes;
import io.mpshare.upgrade.kube.NodeUpgrader.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract with charts/mpshare: the MPS DaemonSets that {@code helm template} renders (idle colour given a new tag,
 * as docs/upgrade.md says), and pods made from their templates as the DaemonSet controller would, are what
 * {@code upgrade-node} finds and upgrades.
 */
class ChartContractIT {
    static final String NS = "mpshare-system";
    KubernetesMockServer server;
    KubernetesClient client;
    final AtomicInteger serial = new AtomicInteger();

    @BeforeEach void start() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new EvictionCrudDispatcher(), false);
        server.init();
        client = server.createClient();
    }

    @AfterEach void stop() {
        client.close();
        server.destroy();
    }

    static List<DaemonSet> mpsDaemonSets(String greenTag) {
        String text = new Helm(Path.of("../charts/mpshare")).template().withName("mpshare").withNamespace(NS)
                .set("image.tag", "0.1.0").set("mpsControl.colours.green.tag", greenTag).call();
        var yaml = new KubernetesSerialization();
        var out = new ArrayList<DaemonSet>();
        for (String doc : text.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) continue;
            HasMetadata o = yaml.unmarshal(doc);
            if (o instanceof DaemonSet ds && ds.getMetadata().getLabels() != null && ds.getMetadata().getLabels().containsKey(Names.LABEL_MPS_COLOUR))
                out.add(ds);
        }
        return out;
    }

    /** What the DaemonSet controller makes on {@code node} from {@code ds}'s current template. */
    Pod podOf(DaemonSet ds, String node, String image, boolean ready) {
        var tpl = ds.getSpec().getTemplate();
        var spec = new KubernetesSerialization().clone(tpl.getSpec());
        spec.setNodeName(node);
        spec.getContainers().getFirst().setImage(image);
        return client.pods().resource(new PodBuilder().withNewMetadata().withName(ds.getMetadata().getName() + "-" + serial.incrementAndGet())
                .withNamespace(NS).withLabels(tpl.getMetadata().getLabels())
                .addNewOwnerReference().withKind("DaemonSet").withApiVersion("apps/v1").withName(ds.getMetadata().getName()).withUid("u").endOwnerReference()
                .endMetadata().withSpec(spec)
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus()
                .build()).create();
    }

    @Test void renderedChart_upgradeNodeFindsBothColoursAndUpgradesGreen() throws Exception {
        List<DaemonSet> sets = mpsDaemonSets("0.2.0");
        assertThat(sets).extracting(d -> d.getMetadata().getLabels().get(Names.LABEL_MPS_COLOUR)).containsExactlyInAnyOrder("blue", "green");
        client.nodes().resource(Nodes.node("n1").build()).create();
        for (DaemonSet ds : sets) {
            client.apps().daemonSets().resource(ds).create();
            podOf(ds, "n1", ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage().replace("0.2.0", "0.1.0"), true);
        }
        DaemonSet green = sets.stream().filter(d -> d.getMetadata().getName().endsWith("-green")).findFirst().orElseThrow();
        var now = new AtomicReference<>(Instant.parse("2026-11-30T05:00:00Z"));
        Sleeper controller = d -> {
            now.updateAndGet(t -> t.plus(d));
            var greens = client.pods().inNamespace(NS).withLabel(Names.LABEL_MPS_COLOUR, "green").list().getItems();
            if (greens.isEmpty()) podOf(green, "n1", green.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage(), true);
        };
        try (var kube = new KubeNode(client, NS)) {
            var out = new ArrayList<String>();
            var upgrader = new NodeUpgrader(kube, (InstantSource) now::get, controller);
            assertThat(String.join("\n", upgrader.dryRun("n1", new NodeUpgrader.Settings(Duration.ofMinutes(5), false, Duration.ofSeconds(10), Duration.ofSeconds(5)))))
                    .contains("green=").contains("outdated");
            Outcome o = upgrader.run("n1", new NodeUpgrader.Settings(Duration.ofMinutes(5), false, Duration.ofSeconds(10), Duration.ofSeconds(5)), out::add);
            assertThat(o).as("%s", out).isEqualTo(Outcome.DONE);
        }
        assertThat(client.nodes().withName("n1").get().getMetadata().getAnnotations()).containsEntry(Names.ANN_NODE_MPS_ACTIVE, "green");
        assertThat(client.pods().inNamespace(NS).withLabel(Names.LABEL_MPS_COLOUR, "green").list().getItems()).singleElement()
                .satisfies(p -> assertThat(p.getSpec().getContainers().getFirst().getImage()).endsWith(":0.2.0"));
    }
}
