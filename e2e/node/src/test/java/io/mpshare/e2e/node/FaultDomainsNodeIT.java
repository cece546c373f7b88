package io.mpshare.e2e.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultDomains.Member;
import io.mpshare.deviceplugin.domains.DomainNotices;
import io.mpshare.mps.Colour;
import io.mpshare.mps.DomainPaths;
import io.mpshare.mps.DomainState;
import io.mpshare.mps.DomainStatus;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault domains through the real kubelet: the device plugin runs with the chart's {@code --fault-domain-default=tenant},
 * two unlabelled namespaces (two tenants) get two pods each on one fake GPU, and a namespace labelled
 * {@code mpshare.io/fault-domain=node} one pod. What kubelet handed containerd for each container (env and mounts) says
 * which daemon serves it; {@code mps-control}'s status says which daemons run. Then tenant A's domain faults (its MPS
 * server, modelled by {@link DomainServer}, logs the measured teardown line): only tenant A's clients are ended, its
 * pods get a Warning Event naming the fault, tenant B's pods run on untouched, and a new tenant-A pod is admitted and
 * served by the same domain once it serves again.
 */
@ExtendWith(NodeExtension.class)
class FaultDomainsNodeIT {
    static final String TENANT_A = "fd-tenant-a", TENANT_B = "fd-tenant-b", TRUSTED = "fd-trusted";
    /** The chart's device-plugin flag (charts/mpshare: {@code faultDomains.default: tenant}). */
    static final List<String> CHART_DOMAINS = List.of("--fault-domain-default=tenant");
    /** GiB of each tenant pod; the trusted pod takes all but a few GiB of one GPU, so the four fit only on the other. */
    static final int TENANT_GIB = 5, FILLER_GIB = RealNode.UNITS_PER_GPU - 4;

    private RealNode node;
    private final List<DomainServer> servers = new ArrayList<>();

    @Test void twoTenants_ownDaemonAndPipeEach_aFaultEndsOnlyItsDomain_eventsNameIt_aNewPodIsServedAfter(RealNode node) throws Exception {
        this.node = node;
        new PodOps(node).settleKubeletAllocations();
        node.reregisterDevicePlugin("device-specs", CHART_DOMAINS);
        namespace(TENANT_A, Map.of());
        namespace(TENANT_B, Map.of());
        namespace(TRUSTED, Map.of(Names.LABEL_FAULT_DOMAIN, Kind.NODE.label()));
        PodOps a = new PodOps(node, TENANT_A), b = new PodOps(node, TENANT_B), trusted = new PodOps(node, TRUSTED);

        trusted.reporter("filler", FILLER_GIB);
        trusted.awaitRunning("filler", Duration.ofSeconds(90));
        a.reporter("a1", TENANT_GIB);
        a.reporter("a2", TENANT_GIB);
        b.reporter("b1", TENANT_GIB);
        b.reporter("b2", TENANT_GIB);
        for (String n : List.of("a1", "a2")) a.awaitRunning(n, Duration.ofSeconds(90));
        for (String n : List.of("b1", "b2")) b.awaitRunning(n, Duration.ofSeconds(90));

        String gpu = TestPods.bookedUuids(a.get("a1"));
        assertThat(List.of(TestPods.bookedUuids(a.get("a2")), TestPods.bookedUuids(b.get("b1")), TestPods.bookedUuids(b.get("b2"))))
                .as("the four tenant pods share one GPU").containsOnly(gpu);
        assertThat(TestPods.bookedUuids(trusted.get("filler"))).isNotEqualTo(gpu);

        // what kubelet gave containerd: each tenant's own pipe directory, the same for its two pods; the node daemon's for trusted
        DomainPaths domainA = domain(TENANT_A, gpu), domainB = domain(TENANT_B, gpu);
        assertThat(domainA.id()).isNotEqualTo(domainB.id());
        for (String n : List.of("a1", "a2")) assertServedFrom(a, n, domainA.pipeDir().toString());
        for (String n : List.of("b1", "b2")) assertServedFrom(b, n, domainB.pipeDir().toString());
        assertServedFrom(trusted, "filler", Colour.BLUE.pipeDir(node.runDir()).toString());

        // the supervisor runs the two domains' daemons, each its own process on the tenants' GPU
        DomainStatus servingA = awaitDomain(domainA.id(), d -> d.state() == DomainState.SERVING);
        DomainStatus servingB = awaitDomain(domainB.id(), d -> d.state() == DomainState.SERVING);
        assertThat(servingA.daemonPid()).isPositive().isNotEqualTo(servingB.daemonPid());
        assertThat(List.of(servingA.daemonPid(), servingB.daemonPid())).allMatch(FaultDomainsNodeIT::alive);
        assertThat(List.of(servingA.gpu(), servingB.gpu())).containsOnly(gpu);
        assertThat(servingA.pipeDir()).isEqualTo(domainA.pipeDir().toString());

        // each domain's MPS server serves its tenant's containers (host PIDs, as the supervisor sees them)
        DomainServer serverA = server(domainA), serverB = server(domainB);
        Map<String, Long> pid = new LinkedHashMap<>();
        for (String n : List.of("a1", "a2")) pid.put(n, connect(serverA, a, n));
        for (String n : List.of("b1", "b2")) pid.put(n, connect(serverB, b, n));
        awaitDomain(domainA.id(), d -> d.clients().containsAll(List.of(pid.get("a1"), pid.get("a2"))));
        awaitDomain(domainB.id(), d -> d.clients().containsAll(List.of(pid.get("b1"), pid.get("b2"))));
        Map<String, String> containerB = Map.of("b1", containerId(b.get("b1")), "b2", containerId(b.get("b2")));

        // tenant A's server faults; a new tenant-A pod arrives while it tears down
        Instant faultAt = Instant.now();
        List<Long> faulted = serverA.fault();
        a.reporter("a3", TENANT_GIB);

        Duration ended = Waits.until(Duration.ofSeconds(30), () -> !alive(pid.get("a1")) && !alive(pid.get("a2")),
                () -> "tenant A's clients still run; mps-control:\n" + node.mpsControl().tail(10));
        for (String n : List.of("a1", "a2"))
            Waits.until(Duration.ofSeconds(60), () -> terminated(a.get(n)).isPresent(), () -> a.describe(n));
        Duration told = Waits.until(Duration.ofSeconds(30), () -> faultEvent(TENANT_A, "a1").isPresent() && faultEvent(TENANT_A, "a2").isPresent(),
                () -> "no " + DomainNotices.REASON_FAULT + " Event on both tenant-A pods; device plugin:\n" + node.devicePlugin().tail(10));
        for (String n : List.of("a1", "a2")) {
            Event e = faultEvent(TENANT_A, n).orElseThrow();
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).contains("GPU fault in MPS domain " + domainA.id(), "seen by log")
                    .contains(faulted.stream().map(String::valueOf).toList()) // the clients it ended
                    .contains(TENANT_A + "/a1").contains(TENANT_A + "/a2").doesNotContain(TENANT_B);
        }
        DomainStatus afterA = awaitDomain(domainA.id(), d -> d.faults() == 1 && d.state() == DomainState.SERVING);
        assertThat(afterA.lastFault().clients()).containsExactlyInAnyOrderElementsOf(faulted);
        assertThat(afterA.lastFault().source()).isEqualTo("log");
        assertThat(serverA.tearingDown()).as("every faulted client has exited").isFalse();

        // the new tenant-A pod: admitted, given tenant A's domain, and served by its server
        a.awaitRunning("a3", Duration.ofSeconds(90));
        Duration newPodRunning = Duration.between(faultAt, Instant.now());
        assertServedFrom(a, "a3", domainA.pipeDir().toString());
        long a3 = node.containerPid(containerId(a.get("a3")));
        assertThat(serverA.connect(a3)).as("the domain takes new clients again").isTrue();
        awaitDomain(domainA.id(), d -> d.clients().contains(a3));

        // tenant B: untouched
        for (String n : List.of("b1", "b2")) {
            Pod p = b.get(n);
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(containerId(p)).isEqualTo(containerB.get(n));
            assertThat(p.getStatus().getContainerStatuses().getFirst().getRestartCount()).isZero();
            assertThat(alive(pid.get(n))).isTrue();
            assertThat(faultEvent(TENANT_B, n)).isEmpty();
        }
        DomainStatus afterB = currentDomain(domainB.id()).orElseThrow();
        assertThat(afterB.faults()).isZero();
        assertThat(afterB.daemonPid()).isEqualTo(servingB.daemonPid());
        assertThat(afterB.state()).isEqualTo(DomainState.SERVING);
        System.out.printf("e2e/node: fault in domain %s -> its 2 clients ended within %d ms, Events on both pods seen within %d ms more,"
                        + " a new tenant-A pod (created at the fault) running %d ms after it; domain %s (tenant B) untouched%n",
                domainA.id(), ended.toMillis(), told.toMillis(), newPodRunning.toMillis(), domainB.id());
    }

    @AfterEach void cleanUp() throws Exception {
        if (node == null) return;
        for (DomainServer s : servers) s.close();
        for (String ns : List.of(TENANT_A, TENANT_B, TRUSTED)) {
            if (node.api().namespaces().withName(ns).get() == null) continue;
            new PodOps(node, ns).deleteAll();
            node.api().namespaces().withName(ns).delete();
        }
        node.reregisterDevicePlugin("device-specs", List.of());
    }

    // ---- helpers ----

    private void namespace(String name, Map<String, String> labels) throws InterruptedException {
        node.api().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build()).create();
        // pods are admitted once the namespace's default ServiceAccount exists (the controller-manager makes it)
        Waits.until(Duration.ofSeconds(30), () -> node.api().serviceAccounts().inNamespace(name).withName("default").get() != null,
                () -> "no default ServiceAccount in " + name);
    }

    /** The tenant domain of an unlabelled namespace's pods (no runAsUser) on {@code gpuUuid}, as the device plugin names it. */
    private DomainPaths domain(String namespace, String gpuUuid) {
        String key = FaultDomains.key(Kind.TENANT, new Member(namespace, "-", OptionalLong.empty(), RealNode.NAME));
        return DomainPaths.of(Colour.BLUE, node.runDir(), FaultDomains.id(Kind.TENANT, key, gpuUuid));
    }

    /** The container's env and pipe mount as containerd holds them, and what the container saw of that mount. */
    private void assertServedFrom(PodOps ops, String name, String pipe) throws Exception {
        JsonNode spec = new ObjectMapper().readTree(node.containerInfo(containerId(ops.get(name)))).path("Spec");
        List<String> env = new ArrayList<>();
        spec.path("process").path("env").forEach(e -> env.add(e.asText()));
        assertThat(env).as(name + "'s env").contains(Names.ENV_MPS_PIPE + "=" + pipe);
        JsonNode mount = null;
        for (JsonNode m : spec.path("mounts")) if (m.path("destination").asText().equals(pipe)) mount = m;
        assertThat(mount).as(name + "'s mounts: " + spec.path("mounts")).isNotNull();
        assertThat(mount.path("source").asText()).isEqualTo(pipe);
        assertThat(mount.path("options").toString()).contains("\"ro\"");
        Path out = node.outDir();
        Waits.until(Duration.ofSeconds(30), () -> !TestPods.report(out, name).isEmpty(), () -> "no report from " + name);
        Map<String, String> seen = TestPods.report(out, name);
        assertThat(seen.get(Names.ENV_MPS_PIPE)).isEqualTo(pipe);
        assertThat(seen.get("pipe.mount")).startsWith("ro");
        assertThat(seen.get("pipe.write")).isEqualTo("refused");
    }

    private DomainServer server(DomainPaths d) throws Exception {
        DomainServer s = DomainServer.start(d);
        servers.add(s);
        return s;
    }

    private long connect(DomainServer s, PodOps ops, String name) throws Exception {
        long pid = node.containerPid(containerId(ops.get(name)));
        assertThat(s.connect(pid)).as(name + " connects").isTrue();
        return pid;
    }

    private Optional<DomainStatus> currentDomain(String id) {
        try {
            SupervisorStatus s = SupervisorStatusClient.readFile(Colour.BLUE.statusFile(node.runDir()));
            return s.domains().stream().filter(d -> d.id().equals(id)).findFirst();
        } catch (RuntimeException e) {
            return Optional.empty(); // being rewritten
        }
    }

    private DomainStatus awaitDomain(String id, Predicate<DomainStatus> ok) throws InterruptedException {
        Waits.until(Duration.ofSeconds(60), () -> currentDomain(id).filter(ok).isPresent(),
                () -> "domain " + id + ": " + currentDomain(id) + "\nmps-control:\n" + node.mpsControl().tail(10));
        return currentDomain(id).orElseThrow();
    }

    private Optional<Event> faultEvent(String namespace, String pod) {
        return node.api().v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> DomainNotices.REASON_FAULT.equals(e.getReason()) && pod.equals(e.getInvolvedObject().getName()))
                .findFirst();
    }

    private static Optional<ContainerStatus> terminated(Pod p) {
        if (p == null || p.getStatus().getContainerStatuses() == null) return Optional.empty();
        return p.getStatus().getContainerStatuses().stream().filter(c -> c.getState() != null && c.getState().getTerminated() != null).findFirst();
    }

    private static String containerId(Pod p) { return p.getStatus().getContainerStatuses().getFirst().getContainerID(); }

    private static boolean alive(long pid) { return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false); }
}
