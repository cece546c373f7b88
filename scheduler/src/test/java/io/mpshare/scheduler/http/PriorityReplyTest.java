package io.mpshare.scheduler.http;

import io.mpshare.core.policy.PlacementEngine.NodeScore;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PriorityReply} (the hand-written HostPriorityList over request bytes) against the extender's Jackson writer
 * ({@link WireWriter#priorities}) for the same scores: byte for byte, over random names (non-ASCII included, as
 * the request's scan accepts them), every score 0..10, none and one node.
 */
class PriorityReplyTest {
    private static final String[] PIECES = {"gpu-node-", "a", "Z", "0", "é", "名", "😀", ".", "_", "-"};

    @Test void write_randomNamesAndScores_theBytesJacksonWrites() throws Exception {
        SplittableRandom r = new SplittableRandom(3);
        for (int round = 0; round < 300; round++) {
            int n = round == 0 ? 0 : round == 1 ? 1 : 1 + r.nextInt(60);
            List<String> names = new ArrayList<>();
            StringBuilder body = new StringBuilder("[");
            for (int i = 0; i < n; i++) {
                StringBuilder name = new StringBuilder();
                for (int k = 1 + r.nextInt(4); k > 0; k--) name.append(PIECES[r.nextInt(PIECES.length)]);
                name.append(i); // distinct
                names.add(name.toString());
                body.append(i == 0 ? "" : r.nextBoolean() ? "," : " ,\n ").append('"').append(name).append('"');
            }
            body.append("]");
            byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
            RawNames raw = WireReader.scanNames(bytes, 0, bytes.length, new int[1]);
            assertThat(raw).isNotNull();
            int[] scores = new int[n];
            List<NodeScore> list = new ArrayList<>();
            for (int i = 0; i < n; i++) { scores[i] = r.nextInt(11); list.add(new NodeScore(names.get(i), scores[i])); }

            var mine = new ByteArrayOutputStream();
            new PriorityReply().write(mine, scores, raw);
            var jackson = new ByteArrayOutputStream();
            new WireWriter().priorities(jackson, list);
            assertThat(mine.toString(StandardCharsets.UTF_8)).as("round %d", round).isEqualTo(jackson.toString(StandardCharsets.UTF_8));
            assertThat(mine.toByteArray()).isEqualTo(jackson.toByteArray());
        }
    }
}
