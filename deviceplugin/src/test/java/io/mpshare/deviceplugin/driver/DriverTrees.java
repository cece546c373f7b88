package io.mpshare.deviceplugin.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Fake driver trees for the discovery tests: files laid out as a driver installer lays them out. */
final class DriverTrees {
    static final String V = "580.159.04";

    private final Path root;

    DriverTrees(Path root) { this.root = root; }

    Path root() { return root; }

    DriverTrees file(String path) throws IOException {
        Path p = root.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, path);
        return this;
    }

    DriverTrees program(String path) throws IOException {
        file(path);
        Files.setPosixFilePermissions(root.resolve(path), PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    DriverTrees link(String path, String target) throws IOException {
        Path p = root.resolve(path);
        Files.createDirectories(p.getParent());
        Files.createSymbolicLink(p, Path.of(target));
        return this;
    }

    /** A library of the driver: its versioned file and its soname link, as ldconfig leaves them. */
    DriverTrees library(String dir, String name) throws IOException {
        return file(dir + "/" + name + ".so." + V).link(dir + "/" + name + ".so.1", name + ".so." + V);
    }

    DriverTrees devices(String... names) throws IOException {
        for (String n : names) file("dev/" + n);
        return this;
    }
}
