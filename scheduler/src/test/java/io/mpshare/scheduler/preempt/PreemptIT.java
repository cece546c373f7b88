package io.mpshare.scheduler.preempt;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.http.ExtenderHttpServer;
import io.mpshare.scheduler.http.Inspect;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The preempt verb and the nominated pod's hold over real HTTP, with kube-scheduler-shaped JSON
 * (ExtenderPreemptionArgs with NodeNameToMetaVictims, as sent with nodeCacheCapable: true).
 *
 * <p>n1 has two 16 GiB GPUs: GPU 0 holds low-a and low-b (8 GiB each, priority 0), GPU 1 holds low-c
 * (12 GiB, priority 10). n2's one GPU holds vip (16 GiB, priority 2000). The preemptor asks 10 GiB at
 * priority 1000.
 */
class PreemptIT {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final KubernetesSerialization K8S = new KubernetesSerialization();
    static final long G = 1024;
    private final HttpClient http = HttpClient.newHttpClient();
    private Ledger ledger;
    private Nominations nominations;
    private ExtenderHttpServer server;
    private String base;

    @BeforeEach void start() throws Exception {
        ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
        ledger.upsertNode(Nodes.node("n1").gpus(2, 16 * G).inventory());
        ledger.upsertNode(Nodes.node("n2").gpus(1, 16 * G).inventory());
        var policy = new BinpackPolicy();
        nominations = new Nominations(Wiring.ASKS);
        var held = new NominationHold(ledger, policy, nominations);
        var verbs = Wiring.verbs(new PlacementEngine(ledger, policy), held);
        book("low-a", 0, "n1", 0, 8);
        book("low-b", 0, "n1", 0, 8);
        book("low-c", 10, "n1", 1, 12);
        book("vip", 2000, "n2", 0, 16);
        server = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), 2, verbs, Wiring.binder(verbs, new FakePodApi()), new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "test").withPreemption(new PreemptVerb(ledger, policy, nominations), held));
        server.start();
        base = "http://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";
    }

    @AfterEach void stop() { server.close(); }

    /** A bound pod of {@code gib} GiB on one GPU, seen by the informer with its priority and booked in the ledger. */
    private void book(String name, int priority, String node, int gpu, long gib) {
        Pod p = Pods.pod(name).uid("uid-" + name).gpuMem(gib).on(node).phase("Running").build();
        p.getSpec().setPriority(priority);
        nominations.upserted(KubePod.of(p));
        ledger.restore(new Allocation(PodKey.of("default", name), "uid-" + name, node, List.of(gpu), List.of("GPU-" + node + "-" + gpu),
                GpuDemand.simple(gib * G, 0, 1, 0), ledger.clock().instant(), Phase.BOUND));
    }

    /** A pending pod the informer has seen. */
    private Pod pending(String name, int priority, long gib) {
        Pod p = Pods.pod(name).uid("uid-" + name).gpuMem(gib).phase("Pending").build();
        p.getSpec().setPriority(priority);
        nominations.upserted(KubePod.of(p));
        return p;
    }

    private JsonNode post(String verb, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + verb)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private JsonNode preempt(Pod pod) throws Exception {
        // what kube-scheduler proposes by node totals: on n1 the two lowest pods, on n2 a pod we must not name
        String args = "{\"Pod\":" + K8S.asJson(pod) + ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
                + "\"n1\":{\"Pods\":[{\"UID\":\"uid-low-a\"},{\"UID\":\"uid-low-b\"}],\"NumPDBViolations\":1},"
                + "\"n2\":{\"Pods\":[{\"UID\":\"uid-vip\"}],\"NumPDBViolations\":0}}}";
        return post(Names.EXTENDER_VERB_PREEMPT, args).get("NodeNameToMetaVictims");
    }

    private JsonNode prioritize(Pod pod, String... nodes) throws Exception {
        return post("prioritize", "{\"Pod\":" + K8S.asJson(pod) + ",\"NodeNames\":" + JSON.writeValueAsString(List.of(nodes)) + "}");
    }

    private JsonNode filter(Pod pod, String... nodes) throws Exception {
        return post("filter", "{\"Pod\":" + K8S.asJson(pod) + ",\"NodeNames\":" + JSON.writeValueAsString(List.of(nodes)) + "}");
    }

    @Test
    void preempt_namesTheVictimThatFreesOneGpu_dropsNodesWithoutRoom() throws Exception {
        Pod q = pending("q", 1000, 10);
        JsonNode result = preempt(q);
        assertThat(result.propertyNames()).containsExactly("n1");
        // one victim on GPU 1 beats the two on GPU 0 that kube-scheduler proposed
        assertThat(result.get("n1").get("Pods").findValuesAsString("UID")).containsExactly("uid-low-c");
        assertThat(result.get("n1").get("NumPDBViolations").asLong()).isEqualTo(1);
    }

    @Test
    void preempt_podAskingNoGpu_noNodeOffered() throws Exception {
        Pod plain = Pods.pod("plain").uid("uid-plain").phase("Pending").build();
        plain.getSpec().setPriority(1000);
        assertThat(preempt(plain).propertyNames()).isEmpty();
    }

    @Test
    void preempt_badBody_answered200WithNoNode() throws Exception {
        assertThat(post(Names.EXTENDER_VERB_PREEMPT, "{\"Pod\": [").get("NodeNameToMetaVictims").propertyNames()).isEmpty();
    }

    @Test
    void filter_afterPreemption_holdsTheFreedGpuForTheNominee() throws Exception {
        Pod q = pending("q", 1000, 10);
        preempt(q);
        // kube-scheduler nominates q to n1 and deletes low-c; the informer releases it
        q.getStatus().setNominatedNodeName("n1");
        nominations.upserted(KubePod.of(q));
        ledger.release(PodKey.of("default", "low-c"));

        JsonNode lower = filter(pending("late", 0, 6), "n1");
        assertThat(lower.get("NodeNames").isEmpty()).isTrue();
        assertThat(lower.get("FailedNodes").get("n1").asString()).contains("nominated", "default/q");
        // the hold refuses the only node the ledger kept: the pod fits nowhere now, so the other node's reason comes too
        JsonNode both = filter(pending("late", 0, 6), "n1", "n2");
        assertThat(both.get("NodeNames").isEmpty()).isTrue();
        assertThat(both.get("FailedNodes").get("n1").asString()).contains("nominated", "default/q");
        assertThat(both.get("FailedNodes").get("n2").asString()).contains("GiB free");

        assertThat(filter(q, "n1").get("NodeNames").get(0).asString()).isEqualTo("n1");
        assertThat(filter(pending("higher", 5000, 6), "n1").get("NodeNames").get(0).asString()).isEqualTo("n1");
        assertThat(filter(pending("small", 0, 4), "n1").get("NodeNames").get(0).asString()).isEqualTo("n1"); // 4.5 GiB left beside q

        // a pod the informer has not seen yet counts as lowest: held too
        Pod unseen = Pods.pod("unseen").uid("uid-unseen").gpuMem(6).phase("Pending").build();
        unseen.getSpec().setPriority(5000);
        assertThat(filter(unseen, "n1").get("FailedNodes").has("n1")).isTrue();

        // once q is bound (here: no longer nominated) the hold ends
        q.getStatus().setNominatedNodeName(null);
        nominations.upserted(KubePod.of(q));
        assertThat(filter(pending("late", 0, 6), "n1").get("NodeNames").get(0).asString()).isEqualTo("n1");
    }

    /**
     * Two nodes where victims free room: n1 (low-c, priority 10) and n3 (low-d, priority 5). The answer names one, the one
     * kube-scheduler would pick (the lowest highest victim priority), and the preemptor's room there is held from the
     * answer on: a lower-priority pod filtered after the victim is gone, before the pod informer has shown the
     * nomination, is refused there, and prioritize scores that node 0 for it.
     */
    @Test
    void preempt_answersOneNode_andHoldsItsRoomBeforeTheNominationIsSeen() throws Exception {
        ledger.upsertNode(Nodes.node("n3").gpus(1, 16 * G).inventory());
        book("low-d", 5, "n3", 0, 12);
        Pod q = pending("q", 1000, 10);
        String args = "{\"Pod\":" + K8S.asJson(q) + ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
                + "\"n1\":{\"Pods\":[{\"UID\":\"uid-low-a\"}],\"NumPDBViolations\":0},"
                + "\"n3\":{\"Pods\":[{\"UID\":\"uid-low-d\"}],\"NumPDBViolations\":0}}}";
        JsonNode result = post(Names.EXTENDER_VERB_PREEMPT, args).get("NodeNameToMetaVictims");
        assertThat(result.propertyNames()).containsExactly("n3");
        assertThat(result.get("n3").get("Pods").findValuesAsString("UID")).containsExactly("uid-low-d");

        ledger.release(PodKey.of("default", "low-d")); // kube-scheduler deleted the victim; q's nomination not seen yet
        Pod late = pending("late", 0, 6);
        JsonNode lower = filter(late, "n3");
        assertThat(lower.get("NodeNames").isEmpty()).isTrue();
        assertThat(lower.get("FailedNodes").get("n3").asString()).contains("nominated", "default/q");
        JsonNode scores = prioritize(late, "n1", "n3");
        assertThat(scores.findValues("Host").stream().map(JsonNode::asString).toList()).containsExactly("n1", "n3");
        assertThat(scores.get(1).get("Score").asInt()).isZero();
        assertThat(filter(q, "n3").get("NodeNames").get(0).asString()).isEqualTo("n3");
    }

    /** A node where another nominee of higher priority holds the room the victims would free is no candidate. */
    @Test
    void preempt_roomHeldForAHigherNomineeThere_nodeLeftOut() throws Exception {
        Pod top = pending("top", 3000, 10);
        top.getStatus().setNominatedNodeName("n1");
        nominations.upserted(KubePod.of(top));
        assertThat(preempt(pending("q", 1000, 10)).propertyNames()).isEmpty();
    }
}
