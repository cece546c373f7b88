package io.mpshare.core.isolation;

import io.mpshare.core.isolation.FaultDomains.Choice;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultDomains.Member;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The domain of a pod: kind from the namespace's label or the default, suspects alone, several GPUs on the node daemon, ids per GPU. */
class FaultDomainsTest {
    static final String GPU0 = "GPU-5f2c0a1e-0000-4c1b-9a7e-000000000000";
    static final String GPU1 = "GPU-5f2c0a1e-0000-4c1b-9a7e-000000000001";

    static Member pod(String ns, String uid, Long clientUid) {
        return new Member(ns, uid, clientUid == null ? OptionalLong.empty() : OptionalLong.of(clientUid), "gpu-a");
    }

    record KindCase(String name, String label, Kind clusterDefault, Kind kind, String whySays) {}

    @Test void kindOf_labelOrClusterDefault_table() {
        for (KindCase c : List.of(
                new KindCase("no label: the cluster default", null, Kind.TENANT, Kind.TENANT, "cluster default"),
                new KindCase("label pod", "pod", Kind.TENANT, Kind.POD, "labelled mpshare.io/fault-domain=pod"),
                new KindCase("label node under a pod default", "node", Kind.POD, Kind.NODE, "=node"),
                new KindCase("label written loosely", " Tenant ", Kind.NODE, Kind.TENANT, "=tenant"),
                new KindCase("a value that is no kind: the default, and said", "pods", Kind.TENANT, Kind.TENANT, "pods is not tenant, pod or node"))) {
            Choice k = FaultDomains.kindOf("team-a", c.label(), c.clusterDefault());
            assertThat(k.kind()).as(c.name()).isEqualTo(c.kind());
            assertThat(k.why()).as(c.name()).contains(c.whySays());
        }
    }

    @Test void choose_keyPerKind_tenantIsNamespaceAndClientUid() {
        Member a = pod("team-a", "uid-1", 1000L);
        assertThat(FaultDomains.choose(a, FaultDomains.kindOf("team-a", "tenant", Kind.TENANT), false, 1).key()).isEqualTo("team-a/1000");
        assertThat(FaultDomains.choose(a, FaultDomains.kindOf("team-a", "pod", Kind.TENANT), false, 1).key()).isEqualTo("uid-1");
        Choice node = FaultDomains.choose(a, FaultDomains.kindOf("team-a", "node", Kind.TENANT), false, 1);
        assertThat(node.key()).isEqualTo("gpu-a");
        assertThat(node.onNodeDaemon()).isTrue();
        assertThat(node.id(GPU0)).isEqualTo(FaultDomains.NODE_DAEMON);
        assertThat(FaultDomains.choose(pod("team-a", "uid-2", null), FaultDomains.kindOf("team-a", null, Kind.TENANT), false, 1).key())
                .as("no runAsUser known").isEqualTo("team-a/?");
    }

    @Test void choose_twoPodsOfOneTenant_sameDomain_otherUidOrNamespace_another() {
        Choice tenant = FaultDomains.kindOf("x", null, Kind.TENANT);
        String a1 = FaultDomains.choose(pod("team-a", "u1", 1000L), tenant, false, 1).id(GPU0);
        String a2 = FaultDomains.choose(pod("team-a", "u2", 1000L), tenant, false, 1).id(GPU0);
        String aOtherUid = FaultDomains.choose(pod("team-a", "u3", 1001L), tenant, false, 1).id(GPU0);
        String b = FaultDomains.choose(pod("team-b", "u4", 1000L), tenant, false, 1).id(GPU0);
        assertThat(a1).isEqualTo(a2).startsWith("t-").hasSize(14);
        assertThat(aOtherUid).isNotEqualTo(a1);
        assertThat(b).isNotEqualTo(a1);
        assertThat(FaultDomains.choose(pod("team-a", "u1", 1000L), tenant, false, 1).id(GPU1)).as("id per GPU").isNotEqualTo(a1);
    }

    @Test void choose_suspect_podKindWhateverTheNamespaceSays() {
        for (String label : new String[]{"tenant", "node", null}) {
            Choice c = FaultDomains.choose(pod("team-a", "u9", 1000L), FaultDomains.kindOf("team-a", label, Kind.TENANT), true, 1);
            assertThat(c.kind()).as(String.valueOf(label)).isEqualTo(Kind.POD);
            assertThat(c.key()).isEqualTo("u9");
            assertThat(c.why()).contains("suspect");
            assertThat(c.id(GPU0)).startsWith("p-");
        }
    }

    @Test void choose_severalGpus_nodeDaemonWhateverTheKind() {
        Choice c = FaultDomains.choose(pod("team-a", "u1", 1000L), FaultDomains.kindOf("team-a", "pod", Kind.TENANT), true, 2);
        assertThat(c.onNodeDaemon()).isTrue();
        assertThat(c.why()).contains("2 GPUs");
    }

    @Test void id_stablePathSafeAndShort_controlSocketUnder108Bytes() {
        var ids = new HashSet<String>();
        for (int i = 0; i < 10_000; i++) ids.add(FaultDomains.id(Kind.POD, "uid-" + i, GPU0));
        assertThat(ids).as("no two of 10,000 pods meet").hasSize(10_000);
        String id = FaultDomains.id(Kind.TENANT, "team-a/1000", GPU0);
        assertThat(id).isEqualTo(FaultDomains.id(Kind.TENANT, "team-a/1000", GPU0)).matches("t-[0-9a-f]{12}");
        String socket = "/run/mpshare/green/d/" + id + "/pipe/control";
        assertThat(socket.getBytes(StandardCharsets.UTF_8).length).isLessThan(108);
        assertThat(FaultDomains.id(Kind.TENANT, "team-a/1000", GPU0)).as("kind counts").isNotEqualTo(FaultDomains.id(Kind.POD, "team-a/1000", GPU0).replace("p-", "t-"));
    }

    @Test void kind_parseOrThrow_oneLineNamingTheValues() {
        assertThat(Kind.parseOrThrow("node", "--fault-domain-default")).isEqualTo(Kind.NODE);
        assertThatThrownBy(() -> Kind.parseOrThrow("gpu", "--fault-domain-default"))
                .hasMessage("--fault-domain-default must be tenant, pod or node, not 'gpu'");
    }
}
