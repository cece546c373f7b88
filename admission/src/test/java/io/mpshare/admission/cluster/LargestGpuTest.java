package io.mpshare.admission.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.mpshare.core.Names;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class LargestGpuTest {
    private static Node node(String name, String gpus) {
        var b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        if (gpus != null) b.editMetadata().addToAnnotations(Names.ANN_NODE_GPUS, gpus).endMetadata();
        return b.build();
    }

    @Test
    void get_noInventoryYet_empty() {
        var l = new LargestGpu();
        l.onAdd(node("cpu-only", null));
        assertThat(l.get()).isEmpty();
    }

    @Test
    void get_followsAddsUpdatesAndDeletes() {
        var l = new LargestGpu();
        l.onAdd(node("a", "0|GPU-a0|NVIDIA T4|15360|true;1|GPU-a1|NVIDIA T4|15360|false"));
        l.onAdd(node("b", "0|GPU-b0|NVIDIA H200|143771|true"));
        assertThat(l.get()).isEqualTo(OptionalLong.of(143_771));
        l.onUpdate(node("b", "0|GPU-b0|NVIDIA H200|143771|true"), node("b", "garbage"));
        assertThat(l.get()).isEqualTo(OptionalLong.of(15_360));
        l.onDelete(node("a", null), false);
        assertThat(l.get()).isEmpty();
    }

    @Test
    void fixed_zeroMeansUnknown() {
        assertThat(LargestGpu.fixed(0).get()).isEmpty();
        assertThat(LargestGpu.fixed(81_920).get()).hasValue(81_920);
    }
}
