package io.mpshare.mps;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Copies the fake nvidia-cuda-mps-control script (test resource) into a folder, executable. */
final class FakeBinary {
    private FakeBinary() {}

    static Path install(Path dir) {
        try (InputStream in = FakeBinary.class.getResourceAsStream("/fake-nvidia-cuda-mps-control.sh")) {
            Path bin = dir.resolve(MpsBinary.NAME);
            Files.createDirectories(dir);
            Files.copy(in, bin);
            Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
            return bin;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
