package io.mpshare.policing;

import io.mpshare.policing.proc.ContainerIndex;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LiveNodeViewTest {
    @Test
    void view_followsPutRemoveExemptAndHealth() {
        var v = new LiveNodeView();
        var a = Fixtures.pod("a").build();
        v.put(a);
        v.exempt("uid-dcgm");
        v.healthy(1, false);
        v.shared(2, false);
        assertThat(v.allocations()).containsExactly(a);
        assertThat(v.exemptPods()).containsExactly("uid-dcgm");
        assertThat(v.healthy(0)).isTrue();
        assertThat(v.healthy(1)).isFalse();
        assertThat(v.shared(0)).isTrue();
        assertThat(v.shared(2)).isFalse();
        v.remove(a.podUid());
        assertThat(v.allocations()).isEmpty();
        assertThatThrownBy(() -> v.put(Fixtures.pod("b").uid("").build())).hasMessageContaining("no pod UID");
    }

    @Test
    void containerIndex_namesByBareId() {
        var idx = new ContainerIndex();
        idx.put("u1", "containerd://" + "a".repeat(64), "main");
        idx.put("u1", "", "waiting");
        assertThat(idx.nameOf("u1", "a".repeat(64))).contains("main");
        assertThat(idx.nameOf("u2", "a".repeat(64))).isEmpty();
        idx.forget("u1");
        assertThat(idx.nameOf("u1", "a".repeat(64))).isEmpty();
    }
}
