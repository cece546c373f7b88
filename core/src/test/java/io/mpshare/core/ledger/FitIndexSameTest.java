package io.mpshare.core.ledger;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code FitIndex.same}, the byte comparison behind every lookup whose hash matched: reached only on equal hashes, so
 * the index's property tests rarely see it refuse a name; here every length 0-40, a difference at every position.
 */
class FitIndexSameTest {
    @Test
    void same_everyLengthAndPosition_equalOnlyWhenEveryByteIs() {
        for (int len = 0; len <= 40; len++) {
            byte[] name = new byte[len];
            for (int i = 0; i < len; i++) name[i] = (byte) ('a' + i % 26);
            byte[] body = new byte[len + 6];
            System.arraycopy(name, 0, body, 3, len);
            assertThat(FitIndex.same(name, body, 3, len)).as("len %d equal", len).isTrue();
            assertThat(FitIndex.same(name, body, 3, len + 1)).as("len %d longer", len).isFalse();
            for (int p = 0; p < len; p++) {
                body[3 + p] ^= 0x20;
                assertThat(FitIndex.same(name, body, 3, len)).as("len %d differs at %d", len, p).isFalse();
                body[3 + p] ^= 0x20;
            }
        }
        byte[] n = "gpu-node-00042".getBytes(StandardCharsets.UTF_8), b = "[\"gpu-node-00043\"]".getBytes(StandardCharsets.UTF_8);
        assertThat(FitIndex.same(n, b, 2, n.length)).isFalse();
    }
}
