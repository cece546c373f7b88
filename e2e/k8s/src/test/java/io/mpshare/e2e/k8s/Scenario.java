package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.testing.Pods;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * One scenario's corner of the shared cluster: its namespace, its nodes (labelled {@code e2e.mpshare.io/group=NAME}
 * so its pods' nodeSelector keeps them there), its extender(s) and kube-scheduler(s) with profile {@code NAME-sched},
 * and checks read back from the API server: who is bound where, over-commit recomputed from the pods' allocation
 * annotations, the scheduler's Events.
 */
final class Scenario implements AutoCloseable {
    static final String GROUP = "e2e.mpshare.io/group";
    final Cluster cluster;
    final KubernetesClient c;
    final String name;
    final String ns;
    final String schedulerName;
    private final List<ManagedProcess> started = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();

    Scenario(Cluster cluster, String name, Map<String, String> namespaceLabels) {
        this.cluster = cluster;
        this.c = cluster.client();
        this.name = name;
        this.ns = name;
        this.schedulerName = name + "-sched";
        cluster.controlPlane().createNamespace(ns, namespaceLabels);
    }

    void nodes(int count, int gpus) { nodes(0, count, gpus); }

    /** Nodes {@code name-first .. name-(first+count-1)}: more nodes joining later. */
    void nodes(int first, int count, int gpus) {
        for (int i = first; i < first + count; i++)
            nodes.add(GpuNodes.create(c, GpuNodes.Spec.h200(name + "-" + i, gpus, Map.of(GROUP, name))));
    }

    List<Node> nodes() { return List.copyOf(nodes); }

    /** One node {@code name-suffix} of {@code gpus} GPUs of {@code mibPerGpu} each (not H200-sized). */
    Node node(String suffix, int gpus, long mibPerGpu) {
        Node n = GpuNodes.create(c, new GpuNodes.Spec(name + "-" + suffix, gpus, mibPerGpu, "NVIDIA H200", Map.of(GROUP, name)));
        nodes.add(n);
        return n;
    }

    /** The extender as the chart runs it, accepting this scenario's profile, on {@code port} (0: free). */
    Components.Extender extender(String id, int port) { return extender(id, port, List.of()); }

    /** {@link #extender(String, int)} with more arguments after the chart's ({@code --policy=binpack}). */
    Components.Extender extender(String id, int port, List<String> extra) {
        List<String> args = new ArrayList<>(List.of("--scheduler-name=" + schedulerName));
        args.addAll(extra);
        var e = port == 0 ? cluster.components().extender(name + "-" + id, args, cluster.logs(name))
                : cluster.components().extender(name + "-" + id, port, args, cluster.logs(name));
        started.add(e.process());
        return e;
    }

    Components.Scheduler scheduler(String id, Components.SchedulerSettings s) {
        var sch = cluster.components().scheduler(name + "-" + id, s, cluster.logs(name));
        started.add(sch.process());
        return sch;
    }

    /** One extender and one kube-scheduler (no leader election). */
    Components.Extender schedulerAndExtender() { return schedulerAndExtender(List.of()); }

    /** {@link #schedulerAndExtender()} with more extender arguments. */
    Components.Extender schedulerAndExtender(List<String> extenderArgs) {
        var e = extender("extender", 0, extenderArgs);
        scheduler("scheduler", Components.SchedulerSettings.single(schedulerName, e.port()));
        return e;
    }

    Pod gpuPod(String pod, long gib) { return pod(pod, b -> b.gpuMem(gib)); }

    /** A pod of this scenario (its profile, kept to its nodes) with the asks {@code ask} sets. */
    Pod pod(String pod, java.util.function.UnaryOperator<Pods> ask) {
        Pod p = ask.apply(Pods.pod(pod).namespace(ns)).build();
        p.getSpec().setSchedulerName(schedulerName);
        p.getSpec().setNodeSelector(Map.of(GROUP, name));
        return p;
    }

    /** {@link #gpuPod} kept to node {@code name-node} (a filler for that node's GPUs). */
    Pod gpuPodOn(String pod, long gib, int node) {
        Pod p = gpuPod(pod, gib);
        p.getSpec().setNodeSelector(Map.of(GROUP, name, "kubernetes.io/hostname", name + "-" + node));
        return p;
    }

    void create(Pod p) { c.resource(p).create(); }

    /** Creates the pods from {@code threads} threads at once, as a burst of users would. */
    void createAll(List<Pod> pods, int threads) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> fs = new ArrayList<>();
            for (Pod p : pods) fs.add(pool.submit(() -> c.resource(p).create()));
            for (Future<?> f : fs) f.get();
        }
    }

    List<Pod> pods() { return c.pods().inNamespace(ns).list().getItems(); }

    /** Polls (200 ms) until {@code done} holds for the namespace's pods or {@code timeout}; returns the last list. */
    List<Pod> awaitPods(Predicate<List<Pod>> done, Duration timeout) {
        Instant end = Instant.now().plus(timeout);
        List<Pod> last = pods();
        while (!done.test(last) && Instant.now().isBefore(end)) {
            ControlPlane.sleep(200);
            last = pods();
        }
        return last;
    }

    static boolean allBound(List<Pod> pods, int expected) {
        return pods.size() == expected && pods.stream().allMatch(p -> p.getSpec().getNodeName() != null);
    }

    static long boundCount(List<Pod> pods) { return pods.stream().filter(p -> p.getSpec().getNodeName() != null).count(); }

    /** kube-scheduler's Events in the namespace with this reason (Scheduled, FailedScheduling). */
    List<Event> events(String reason) {
        return c.v1().events().inNamespace(ns).list().getItems().stream().filter(e -> reason.equals(e.getReason())).toList();
    }

    /** Times each pod was reported Scheduled (an Event may carry a series count). */
    Map<String, Integer> scheduledCounts() {
        Map<String, Integer> out = new HashMap<>();
        for (Event e : events("Scheduled")) {
            int n = e.getSeries() != null && e.getSeries().getCount() != null ? e.getSeries().getCount() : (e.getCount() == null ? 1 : e.getCount());
            out.merge(e.getInvolvedObject().getName(), n, Integer::sum);
        }
        return out;
    }

    /**
     * Over-commit, recomputed here from the pods' allocation annotations against this scenario's nodes
     * ({@link Bookings#overCommit}): one line per problem; empty if none.
     */
    List<String> overCommit(List<Pod> pods) {
        return Bookings.overCommit(pods, c.nodes().withLabel(GROUP, name).list().getItems());
    }

    static Map<String, String> fields(String allocation) { return Bookings.fields(allocation); }

    /** Stops this scenario's processes and deletes its pods, namespace and nodes, so the shared cluster stays small. */
    @Override public void close() {
        for (int i = started.size() - 1; i >= 0; i--) cluster.controlPlane().stop(started.get(i));
        c.pods().inNamespace(ns).withGracePeriod(0).delete();
        c.namespaces().withName(ns).delete();
        for (Node n : nodes) c.nodes().withName(n.getMetadata().getName()).delete();
    }
}
