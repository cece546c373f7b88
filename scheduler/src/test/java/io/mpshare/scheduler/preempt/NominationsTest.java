package io.mpshare.scheduler.preempt;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class NominationsTest {
    private final Nominations n = new Nominations(new DemandResolver(512), MemoryUnit.GIB);

    static Pod nominated(String name, Integer priority, String node) {
        Pod p = Pods.pod(name).uid("uid-" + name).gpuMem(4).phase("Pending").build();
        p.getSpec().setPriority(priority);
        p.getStatus().setNominatedNodeName(node);
        return p;
    }

    static PodKey key(String name) { return PodKey.of("default", name); }

    @Test
    void heldAgainst_equalOrHigherPriorityNomineesOnly_notItself() {
        n.upserted(KubePod.of(nominated("hi", 1000, "n1")));
        n.upserted(KubePod.of(nominated("mid", 500, "n1")));
        assertThat(n.heldAgainst("n1", key("x"), 500)).extracting(m -> m.pod().name()).containsExactlyInAnyOrder("hi", "mid");
        assertThat(n.heldAgainst("n1", key("x"), 501)).extracting(m -> m.pod().name()).containsExactly("hi");
        assertThat(n.heldAgainst("n1", key("hi"), 0)).extracting(m -> m.pod().name()).containsExactly("mid");
        assertThat(n.heldAgainst("n2", key("x"), 0)).isEmpty();
    }

    @Test
    void apply_bindingDeletionOrClearedNomination_endsTheHold() {
        Pod bound = nominated("bound", 10, "n1");
        Pod gone = nominated("gone", 10, "n1");
        Pod cleared = nominated("cleared", 10, "n1");
        for (Pod p : List.of(bound, gone, cleared)) n.upserted(KubePod.of(p));
        bound.getSpec().setNodeName("n1");
        n.upserted(KubePod.of(bound));
        n.deleted(KubePod.of(gone));
        cleared.getStatus().setNominatedNodeName("");
        n.upserted(KubePod.of(cleared));
        assertThat(n.any()).isFalse();
        assertThat(n.nodes()).isEmpty();
        assertThat(n.priority(key("gone"))).isEmpty();
        assertThat(n.priority(key("bound"))).hasValue(10);
    }

    @Test
    void apply_nominationMoves_heldOnTheNewNodeOnly() {
        Pod p = nominated("q", 10, "n1");
        n.upserted(KubePod.of(p));
        p.getStatus().setNominatedNodeName("n2");
        n.upserted(KubePod.of(p));
        assertThat(n.heldAgainst("n1", key("x"), 0)).isEmpty();
        assertThat(n.heldAgainst("n2", key("x"), 0)).hasSize(1);
    }

    @Test
    void apply_noPriority_countsAsZero_andPodWithoutGpuIsNoNominee() {
        n.upserted(KubePod.of(nominated("q", null, "n1")));
        Pod plain = Pods.pod("plain").phase("Pending").build();
        plain.getStatus().setNominatedNodeName("n1");
        n.upserted(KubePod.of(plain));
        assertThat(n.priority(key("q"))).hasValue(0);
        assertThat(n.heldAgainst("n1", key("x"), Integer.MIN_VALUE)).extracting(m -> m.pod().name()).containsExactly("q");
    }

    @Test
    void decided_gpusOfTheNominatedNodeAreHeld() {
        n.decided(key("q"), Map.of("n1", List.of(1), "n2", List.of(0)));
        n.upserted(KubePod.of(nominated("q", 10, "n1")));
        assertThat(n.heldAgainst("n1", key("x"), 0).getFirst().gpuIndices()).containsExactly(1);
        n.decided(key("q"), Map.of("n1", List.of(0)));
        assertThat(n.heldAgainst("n1", key("x"), 0).getFirst().gpuIndices()).containsExactly(0);
    }

    @Test
    void priority_otherUid_unknown() {
        n.upserted(KubePod.of(nominated("q", 10, "n1")));
        assertThat(n.priority(key("q"), "uid-q")).hasValue(10);
        assertThat(n.priority(key("q"), "another")).isEmpty();
    }
}
