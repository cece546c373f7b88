package io.mpshare.e2e.node;

import io.mpshare.e2e.node.OciArchive.DirEntry;
import io.mpshare.e2e.node.OciArchive.Entry;
import io.mpshare.e2e.node.OciArchive.FileEntry;
import io.mpshare.e2e.node.OciArchive.LinkEntry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tier's two images, made from host binaries: {@link #PAUSE} (the sandbox image: a static {@code pause} built
 * with {@code gcc -static} when libc's static archive is there, else busybox-static's {@code sleep}) and
 * {@link #SHELL} (busybox-static as {@code /bin/sh} and its applets). Pods use {@code imagePullPolicy: Never}.
 */
final class TestImages {
    static final String PAUSE = "docker.io/mpshare-e2e/pause:1";
    static final String SHELL = "docker.io/mpshare-e2e/busybox:1";
    static final Path BUSYBOX = Path.of("/bin/busybox");
    private static final List<String> APPLETS = List.of("sh", "cat", "echo", "env", "grep", "ls", "mkdir", "sleep", "test",
            "touch", "tr", "sed", "id", "true", "false", "printf", "stat", "wc", "head", "tail", "cut", "rm", "mv", "date");

    /** The archives written, and how the pause binary was made. */
    record Archives(Path pause, Path shell, String pauseKind) {}

    private TestImages() {}

    static Archives write(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        byte[] busybox = Files.readAllBytes(BUSYBOX);
        Path pause = dir.resolve("pause.oci.tar");
        Path shell = dir.resolve("busybox.oci.tar");
        byte[] compiled = compilePause(dir);
        String kind;
        if (compiled != null) {
            OciArchive.write(pause, PAUSE, List.of(new FileEntry("pause", compiled, 0755)), List.of("/pause"));
            kind = "gcc -static";
        } else {
            OciArchive.write(pause, PAUSE, List.of(new DirEntry("bin"), new FileEntry("bin/busybox", busybox, 0755),
                    new LinkEntry("bin/sleep", "busybox")), List.of("/bin/sleep", "2147483647"));
            kind = "busybox sleep";
        }
        List<Entry> files = new ArrayList<>(List.of(new DirEntry("bin"), new DirEntry("tmp"), new FileEntry("bin/busybox", busybox, 0755)));
        for (String a : APPLETS) files.add(new LinkEntry("bin/" + a, "busybox"));
        OciArchive.write(shell, SHELL, files, List.of("/bin/sh"));
        return new Archives(pause, shell, kind);
    }

    /** {@code gcc -static pause.c}, or null when gcc or libc's static archive is missing. */
    private static byte[] compilePause(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("pause.c");
        Path bin = dir.resolve("pause");
        try (InputStream in = TestImages.class.getResourceAsStream("/pause.c")) {
            if (in == null) throw new IllegalStateException("pause.c missing from the test resources");
            Files.write(src, in.readAllBytes());
        }
        Process p;
        try {
            p = new ProcessBuilder("gcc", "-static", "-Os", "-o", bin.toString(), src.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("gcc.log").toFile()).start();
        } catch (IOException noGcc) {
            return null;
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 ? Files.readAllBytes(bin) : null;
    }
}
