package io.mpshare.deviceplugin.driver;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class LdCacheTest {
    /** Written by ldconfig (glibc 2.36) for a root holding /usr/local/nvidia/lib64 and one distribution library. */
    private static byte[] cache() throws IOException {
        try (InputStream in = LdCacheTest.class.getResourceAsStream("/driver/ld.so.cache")) {
            return in.readAllBytes();
        }
    }

    @Test void parse_ldconfigsCache_everyNameAndPath() throws IOException {
        assertThat(LdCache.parse(cache())).containsExactlyInAnyOrder(
                new LdCache.Entry("libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1"),
                new LdCache.Entry("libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1"),
                new LdCache.Entry("libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"));
    }

    @Test void parse_afterAnOldFormatPart_offsetsCountFromTheNewPart() throws IOException {
        byte[] old = "ld.so-1.7.0\0\0\0\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] both = new byte[old.length + cache().length];
        System.arraycopy(old, 0, both, 0, old.length);
        System.arraycopy(cache(), 0, both, old.length, cache().length);
        assertThat(LdCache.parse(both)).hasSize(3);
    }

    @Test void parse_notACacheOrCutShort_empty() throws IOException {
        assertThat(LdCache.parse("not a cache".getBytes())).isEmpty();
        assertThat(LdCache.parse(Arrays.copyOf(cache(), 60))).isEmpty();
        assertThat(LdCache.parse(new byte[0])).isEmpty();
    }
}
