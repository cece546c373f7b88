package io.mpshare.core.codec;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class InventoryCodecTest {

    static Stream<Arguments> inventories() {
        return Stream.of(
                argumentSet("eight H200", h200s("n1", 8)),
                argumentSet("mixed sizes", node("n2", 24_576, 81_920, 143_771)),
                argumentSet("unhealthy GPU and gaps in indices", new NodeInventory("n3", List.of(
                        new Gpu(0, "GPU-aaa", "NVIDIA H200", 143_771, false), new Gpu(5, "GPU-bbb", "NVIDIA A100-SXM4-80GB", 81_920, true)))),
                argumentSet("no GPUs", new NodeInventory("n4", List.of())));
    }

    @ParameterizedTest
    @MethodSource("inventories")
    void decode_encoded_sameInventory(NodeInventory inv) {
        assertThat(InventoryCodec.decode(inv.node(), InventoryCodec.encode(inv))).isEqualTo(inv);
    }

    @Test
    void encode_oneEntryPerGpu() {
        assertThat(InventoryCodec.encode(node("n", 1000, 2000)))
                .isEqualTo("0|GPU-n-0|NVIDIA H200|1000|true;1|GPU-n-1|NVIDIA H200|2000|true");
    }

    @Test
    void encode_separatorsInNames_replaced() {
        var inv = new NodeInventory("n", List.of(new Gpu(0, "GPU-x", "Odd|Model;X", 1000, true)));
        assertThat(InventoryCodec.decode("n", InventoryCodec.encode(inv)).gpus().getFirst().model()).isEqualTo("Odd/Model,X");
    }

    @Test
    void decode_nullOrBlank_noGpus() {
        assertThat(InventoryCodec.decode("n", null).gpus()).isEmpty();
        assertThat(InventoryCodec.decode("n", " ").gpus()).isEmpty();
    }

    static Stream<Arguments> broken() {
        return Stream.of(
                argumentSet("too few fields", "0|GPU-a|H200|1000", List.of("node n", "'0|GPU-a|H200|1000'", "index|uuid|model|MiB|healthy")),
                argumentSet("index not a number", "x|GPU-a|H200|1000|true", List.of("node n", "bad number")),
                argumentSet("memory not a number", "0|GPU-a|H200|lots|true", List.of("bad number")),
                argumentSet("health not a boolean", "0|GPU-a|H200|1000|yes", List.of("health 'yes'", "true or false")),
                argumentSet("negative index", "-1|GPU-a|H200|1000|true", List.of("node n", "index must be >= 0")),
                argumentSet("zero memory", "0|GPU-a|H200|0|true", List.of("node n", "must be > 0 MiB")),
                argumentSet("blank uuid", "0| |H200|1000|true", List.of("node n", "blank UUID")),
                argumentSet("index twice", "0|GPU-a|H200|1000|true;0|GPU-b|H200|1000|true", List.of("lists GPU index 0 twice")),
                argumentSet("uuid twice", "0|GPU-a|H200|1000|true;1|GPU-a|H200|1000|true", List.of("lists GPU UUID GPU-a twice")));
    }

    @ParameterizedTest
    @MethodSource("broken")
    void decode_badText_throwsNamingNodeAndEntry(String text, List<String> fragments) {
        assertThatThrownBy(() -> InventoryCodec.decode("n", text))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> { for (String f : fragments) assertThat(e.getMessage()).contains(f); });
    }
}
