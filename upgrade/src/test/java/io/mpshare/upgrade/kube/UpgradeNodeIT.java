package io.mpshare.upgrade.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.Names;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import io.mpshare.upgrade.kube.NodeUpgrader.Outcome;
import io.mpshare.upgrade.plan.UpgradeState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code upgrade-node} against fabric8's mock API server in CRUD mode. The "world" between polls is played by the
 * sleeper: a DaemonSet controller that recreates a deleted daemon pod from its template (not Ready, then Ready on the
 * next tick), a device plugin that starts new pods on the Node's active colour, and clients that finish when told.
 */
class UpgradeNodeIT {
    static final String NS = "kube-system";
    static final Instant T0 = Instant.parse("2026-11-30T05:00:00Z");

    EvictionCrudDispatcher dispatcher;
    KubernetesMockServer server;
    KubernetesClient client;
    final AtomicReference<Instant> now = new AtomicReference<>(T0);
    final List<Runnable> world = new CopyOnWriteArrayList<>();
    final List<String> out = new CopyOnWriteArrayList<>();
    final AtomicInteger generation = new AtomicInteger();

    @BeforeEach void start() {
        dispatcher = new EvictionCrudDispatcher();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        client = server.createClient();
        node("n1");
        daemonSet("blue", "mpshare:1.0");
        daemonSet("green", "mpshare:1.1"); // helm upgrade gave the idle colour the new tag
        world.add(this::daemonSetController);
    }

    final List<KubeNode> kubes = new CopyOnWriteArrayList<>();

    @AfterEach void stop() {
        kubes.forEach(KubeNode::close);
        client.close();
        server.destroy();
    }

    // ---- fixtures -----------------------------------------------------------------------------------------------

    void node(String name) { client.nodes().resource(Nodes.node(name).build()).create(); }

    void daemonSet(String colour, String image) {
        DaemonSet ds = new DaemonSetBuilder().withNewMetadata().withName("mpshare-mps-control-" + colour).withNamespace(NS)
                .addToLabels(Names.LABEL_MPS_COLOUR, colour).endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels(Names.LABEL_MPS_COLOUR, colour).endSelector()
                .withNewUpdateStrategy().withType("OnDelete").endUpdateStrategy()
                .withNewTemplate().withNewMetadata().addToLabels(Names.LABEL_MPS_COLOUR, colour)
                .addToLabels(Names.MPS_DAEMON_POD_LABEL, Names.MPS_DAEMON_POD_LABEL_VALUE).endMetadata()
                .withNewSpec().addToNodeSelector(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS)
                .addNewContainer().withName("mps-control").withImage(image).endContainer().endSpec().endTemplate().endSpec().build();
        client.apps().daemonSets().resource(ds).create();
    }

    Pod daemonPod(String colour, String node, String image, boolean ready) {
        Pod p = new PodBuilder().withNewMetadata().withName("mps-" + colour + "-" + node + "-" + generation.incrementAndGet()).withNamespace(NS)
                .addToLabels(Names.LABEL_MPS_COLOUR, colour).addToLabels(Names.MPS_DAEMON_POD_LABEL, Names.MPS_DAEMON_POD_LABEL_VALUE)
                .addNewOwnerReference().withKind("DaemonSet").withApiVersion("apps/v1").withName("mpshare-mps-control-" + colour).withUid("ds-" + colour).endOwnerReference()
                .endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("mps-control").withImage(image).endContainer().endSpec()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus().build();
        return client.pods().resource(p).create();
    }

    /** A GPU pod started as an MPS client of {@code colour} (null: colour not recorded, as an older device plugin left it). */
    Pod clientPod(String name, String node, String colour) {
        var b = Pods.pod(name).on(node).gpuMem(7).phase("Running").annotation(Names.ANN_ALLOCATION, "any").annotation(Names.ANN_ASSIGNED, "true");
        if (colour != null) b.annotation(Names.ANN_MPS_COLOUR, colour);
        return client.pods().resource(b.build()).create();
    }

    void finish(String name) {
        client.pods().inNamespace("default").withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Succeeded\"}}");
    }

    List<Pod> daemonPods(String colour, String node) {
        return client.pods().inNamespace(NS).withLabel(Names.LABEL_MPS_COLOUR, colour).list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    }

    /**
     * OnDelete DaemonSet controller: a node without a pod of a colour gets one from the template, Ready one tick later.
     * One controller, as in a cluster: the concurrent upgraders' sleepers call it from two threads (regression: both
     * edited one pod at once and the loser's 409 surfaced as that node's upgrade failure).
     */
    synchronized void daemonSetController() {
        for (Node n : client.nodes().list().getItems()) {
            for (String colour : List.of("blue", "green")) {
                List<Pod> pods = daemonPods(colour, n.getMetadata().getName());
                if (pods.isEmpty()) {
                    String image = client.apps().daemonSets().inNamespace(NS).withName("mpshare-mps-control-" + colour).get()
                            .getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();
                    daemonPod(colour, n.getMetadata().getName(), image, false);
                } else {
                    for (Pod p : pods) {
                        if (p.getStatus().getConditions().getFirst().getStatus().equals("False"))
                            client.pods().inNamespace(NS).withName(p.getMetadata().getName()).edit(x -> {
                                x.getStatus().getConditions().getFirst().setStatus("True");
                                return x;
                            });
                    }
                }
            }
        }
    }

    String annotation(String node, String key) {
        Map<String, String> a = client.nodes().withName(node).get().getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    NodeUpgrader upgrader() {
        Sleeper sleeper = d -> {
            now.updateAndGet(t -> t.plus(d));
            for (Runnable r : world) r.run();
        };
        var kube = new KubeNode(client, NS);
        kubes.add(kube);
        return new NodeUpgrader(kube, (InstantSource) now::get, sleeper);
    }

    static NodeUpgrader.Settings settings(Duration maxWait, boolean drain) {
        return new NodeUpgrader.Settings(maxWait, drain, Duration.ofSeconds(10), Duration.ofSeconds(5));
    }

    List<String> deletes() { return dispatcher.log.stream().filter(l -> l.startsWith("DELETE")).toList(); }

    // ---- tests --------------------------------------------------------------------------------------------------

    @Test void upgrade_clientsOnOldColour_noneDeleted_newPodsLandOnNewColour() throws Exception {
        Pod blue = daemonPod("blue", "n1", "mpshare:1.0", true);
        daemonPod("green", "n1", "mpshare:1.0", true); // idle, outdated
        clientPod("train-a", "n1", "blue");
        clientPod("train-b", "n1", null); // started before colours were recorded: counted on blue
        var ticks = new AtomicInteger();
        world.add(() -> {
            // the device plugin: a new pod is given the Node's active colour
            if (ticks.incrementAndGet() == 3) clientPod("late", "n1", Names.MPS_COLOUR_DEFAULT.equals(activeOrBlue("n1")) ? "blue" : "green");
            if (ticks.get() == 6) finish("train-a");
            if (ticks.get() == 8) finish("train-b");
        });

        Outcome o = upgrader().run("n1", settings(Duration.ofMinutes(30), false), out::add);

        assertThat(o).isEqualTo(Outcome.DONE);
        assertThat(annotation("n1", Names.ANN_NODE_MPS_ACTIVE)).isEqualTo("green");
        assertThat(annotation("n1", Names.ANN_NODE_UPGRADE)).isNull();
        assertThat(client.pods().inNamespace("default").withName("late").get().getMetadata().getAnnotations())
                .containsEntry(Names.ANN_MPS_COLOUR, "green");
        assertThat(daemonPods("green", "n1")).singleElement().satisfies(p ->
                assertThat(p.getSpec().getContainers().getFirst().getImage()).isEqualTo("mpshare:1.1"));
        assertThat(daemonPods("blue", "n1")).singleElement().satisfies(p ->
                assertThat(p.getMetadata().getName()).isEqualTo(blue.getMetadata().getName()));
        assertThat(deletes()).singleElement().satisfies(d -> assertThat(d).contains("/pods/mps-green-n1-"));
        assertThat(dispatcher.log).noneMatch(l -> l.contains("/eviction"));
        assertThat(out).anyMatch(l -> l.contains("switch mpshare.io/mps-active blue -> green"));
    }

    String activeOrBlue(String node) {
        String a = annotation(node, Names.ANN_NODE_MPS_ACTIVE);
        return a == null ? "blue" : a;
    }

    @Test void upgrade_maxWaitPasses_stopsWithProgressKept_thenResumes() throws Exception {
        daemonPod("blue", "n1", "mpshare:1.0", true);
        daemonPod("green", "n1", "mpshare:1.0", true);
        clientPod("train-a", "n1", "blue");

        Outcome first = upgrader().run("n1", settings(Duration.ofMinutes(1), false), out::add);

        assertThat(first).isEqualTo(Outcome.TIMED_OUT);
        assertThat(annotation("n1", Names.ANN_NODE_MPS_ACTIVE)).isEqualTo("green");
        assertThat(UpgradeState.decode(annotation("n1", Names.ANN_NODE_UPGRADE))).hasValueSatisfying(s ->
                assertThat(s.phase()).isEqualTo(UpgradeState.Phase.SWITCHED));
        assertThat(client.pods().inNamespace("default").withName("train-a").get()).isNotNull();

        world.add(() -> finish("train-a"));
        Outcome second = upgrader().run("n1", settings(Duration.ofMinutes(1), false), out::add);

        assertThat(second).isEqualTo(Outcome.DONE);
        assertThat(annotation("n1", Names.ANN_NODE_UPGRADE)).isNull();
        assertThat(deletes()).hasSize(1); // the idle green pod, once: the resumed run did not restart anything
    }

    @Test void upgrade_interruptedBeforeTheSwitch_resumesWithoutRestartingTwice() throws Exception {
        daemonPod("blue", "n1", "mpshare:1.0", true);
        daemonPod("green", "n1", "mpshare:1.1", false); // a previous run deleted it; the controller made a new one, not Ready
        String state = new UpgradeState(UpgradeState.Mode.BLUE_GREEN, UpgradeState.Phase.STARTING, "blue", "green", T0, false).encode();
        client.nodes().withName("n1").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"" + Names.ANN_NODE_UPGRADE + "\":\"" + state + "\"}}}");

        Outcome o = upgrader().run("n1", settings(Duration.ofMinutes(5), false), out::add);

        assertThat(o).isEqualTo(Outcome.DONE);
        assertThat(deletes()).isEmpty();
        assertThat(annotation("n1", Names.ANN_NODE_MPS_ACTIVE)).isEqualTo("green");
    }

    @Test void upgrade_drain_cordonsEvictsThroughPdbUncordons() throws Exception {
        daemonPod("blue", "n1", "mpshare:1.0", true);
        daemonPod("green", "n1", "mpshare:1.0", true);
        clientPod("train-a", "n1", "blue");
        clientPod("guarded", "n1", "blue");
        dispatcher.pdbBlocked.add("guarded");
        var ticks = new AtomicInteger();
        var sawCordoned = new java.util.concurrent.atomic.AtomicBoolean();
        world.add(() -> {
            var spec = client.nodes().withName("n1").get().getSpec();
            if (spec != null && Boolean.TRUE.equals(spec.getUnschedulable())) sawCordoned.set(true);
            if (ticks.incrementAndGet() == 20) dispatcher.pdbBlocked.clear();
        });

        Outcome o = upgrader().run("n1", settings(Duration.ofMinutes(1), true), out::add);

        assertThat(o).isEqualTo(Outcome.DONE);
        assertThat(client.pods().inNamespace("default").list().getItems()).isEmpty();
        assertThat(sawCordoned).isTrue();
        assertThat(client.nodes().withName("n1").get().getSpec().getUnschedulable()).isFalse();
        assertThat(out).anyMatch(l -> l.contains("eviction of default/guarded refused"));
        assertThat(deletes()).noneMatch(d -> d.contains("/pods/mps-blue"));
        assertThat(annotation("n1", Names.ANN_NODE_UPGRADE)).isNull();
    }

    @Test void upgrade_drainInPlace_withoutIdleColour_seedProcedure() throws Exception {
        client.apps().daemonSets().inNamespace(NS).withName("mpshare-mps-control-green").delete();
        client.apps().daemonSets().inNamespace(NS).withName("mpshare-mps-control-blue")
                .edit(ds -> { ds.getSpec().getTemplate().getSpec().getContainers().getFirst().setImage("mpshare:1.1"); return ds; });
        world.clear();
        world.add(() -> { // blue only
            List<Pod> pods = daemonPods("blue", "n1");
            if (pods.isEmpty()) daemonPod("blue", "n1", "mpshare:1.1", false);
            else client.pods().inNamespace(NS).withName(pods.getFirst().getMetadata().getName()).edit(x -> {
                x.getStatus().getConditions().getFirst().setStatus("True");
                return x;
            });
        });
        daemonPod("blue", "n1", "mpshare:1.0", true);
        clientPod("train-a", "n1", "blue");

        assertThat(upgrader().run("n1", settings(Duration.ofMinutes(1), false), out::add)).isEqualTo(Outcome.BLOCKED);
        Outcome o = upgrader().run("n1", settings(Duration.ofMinutes(1), true), out::add);

        assertThat(o).isEqualTo(Outcome.DONE);
        assertThat(daemonPods("blue", "n1")).singleElement().satisfies(p ->
                assertThat(p.getSpec().getContainers().getFirst().getImage()).isEqualTo("mpshare:1.1"));
        assertThat(dispatcher.log).anyMatch(l -> l.contains("/pods/train-a/eviction"));
        assertThat(client.nodes().withName("n1").get().getSpec().getUnschedulable()).isFalse();
    }

    @Test void dryRun_printsThePlan_writesNothing() {
        daemonPod("blue", "n1", "mpshare:1.0", true);
        daemonPod("green", "n1", "mpshare:1.0", true);
        clientPod("train-a", "n1", "blue");
        int before = dispatcher.log.size();

        List<String> plan = upgrader().dryRun("n1", settings(Duration.ofMinutes(30), false));

        assertThat(String.join("\n", plan)).contains("blue active").contains("green=mpshare:1.0 outdated")
                .contains("mpshare.io/mps-active blue -> green").contains("1 client(s) of blue");
        assertThat(dispatcher.log.subList(before, dispatcher.log.size())).allMatch(l -> l.startsWith("GET"));
    }

    @Test void all_twoNodesConcurrently_bothDone() throws Exception {
        node("n2");
        for (String n : List.of("n1", "n2")) {
            daemonPod("blue", n, "mpshare:1.0", true);
            daemonPod("green", n, "mpshare:1.0", true);
        }
        var kube = new KubeNode(client, NS);
        kubes.add(kube);
        var outcomes = new FleetUpgrade(upgrader()).run(kube.mpsNodes(), 2, settings(Duration.ofMinutes(5), false), out::add);

        assertThat(outcomes).containsOnlyKeys("n1", "n2").containsValues(Outcome.DONE, Outcome.DONE);
        assertThat(new ArrayList<>(outcomes.values())).as("upgrade-node said:\n%s", String.join("\n", out)).containsOnly(Outcome.DONE);
        assertThat(annotation("n2", Names.ANN_NODE_MPS_ACTIVE)).isEqualTo("green");
    }
}
