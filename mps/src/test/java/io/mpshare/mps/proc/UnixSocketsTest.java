package io.mpshare.mps.proc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** /proc/net/unix as the kernel writes it (lines from a host with an MPS daemon, inodes changed). */
class UnixSocketsTest {
    static final String TEXT = """
            Num       RefCount Protocol Flags    Type St Inode Path
            ffff8f0a51a4e000: 00000002 00000000 00010000 0005 01 23410 /run/mpshare/blue/pipe/control
            ffff8f0a51a4f000: 00000003 00000000 00000000 0005 03 23977 /run/mpshare/blue/pipe/control
            ffff8f0a51a4c400: 00000003 00000000 00000000 0005 03 23976
            ffff8f0a44a21c00: 00000002 00000000 00010000 0001 01 17722 @/tmp/.X11-unix/X0
            ffff8f0a44a20000: 00000002 00000000 00010000 0001 01 17801 /tmp/a dir/with spaces.sock
            ffff8f0a44a20400: 0000000""";

    @Test void parse_entries_pathsWithSpacesAndAbstract_cutLineSkipped() {
        UnixSockets t = UnixSockets.parse(TEXT);
        assertThat(t.entries()).hasSize(5);
        assertThat(t.listener("/run/mpshare/blue/pipe/control")).satisfies(e -> {
            assertThat(e.inode()).isEqualTo(23410);
            assertThat(e.type()).isEqualTo(5);
            assertThat(e.listening()).isTrue();
        });
        assertThat(t.accepted("/run/mpshare/blue/pipe/control")).isEqualTo(1);
        assertThat(t.byInode(23976).path()).isEmpty();
        assertThat(t.byInode(23976).connected()).isTrue();
        assertThat(t.byInode(17722).path()).isEqualTo("@/tmp/.X11-unix/X0");
        assertThat(t.byInode(17801).path()).isEqualTo("/tmp/a dir/with spaces.sock");
        assertThat(t.byInode(1)).isNull();
    }
}
