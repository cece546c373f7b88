package io.mpshare.deviceplugin.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static io.mpshare.deviceplugin.driver.DriverTrees.V;
import static org.assertj.core.api.Assertions.assertThat;

class DriverDiscoveryTest {
    private static final Map<Integer, Integer> ONE_GPU = Map.of(0, 0);

    private static DriverFiles found(DriverDiscovery.Result r) {
        assertThat(r).isInstanceOf(DriverDiscovery.Found.class);
        return ((DriverDiscovery.Found) r).files();
    }

    /** A driver installed on the host the usual way (Debian/Ubuntu multiarch folders, utilities in /usr/bin). */
    private static DriverTrees hostInstall(Path root) throws IOException {
        String lib = "usr/lib/x86_64-linux-gnu";
        return new DriverTrees(root).library(lib, "libcuda").library(lib, "libnvidia-ml").library(lib, "libnvidia-ptxjitcompiler")
                .link(lib + "/libcuda.so", "libcuda.so.1")
                .file(lib + "/libcuda.so.570.86.10").file(lib + "/libz.so.1.2.13").link(lib + "/libz.so.1", "libz.so.1.2.13")
                .program("usr/bin/nvidia-smi").program("usr/bin/nvidia-cuda-mps-control").file("usr/bin/nvidia-debugdump")
                .file("lib/firmware/nvidia/" + V + "/gsp_ga10x.bin").devices("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm");
    }

    @Test void find_hostInstall_versionedLibrariesTheirLinksUtilitiesFirmwareAndNodes(@TempDir Path root) throws IOException {
        hostInstall(root);
        DriverFiles f = found(DriverDiscovery.find(DriverRoots.onHost(root, root), V, Map.of(0, 0, 1, 1), Optional.empty()));
        String lib = root + "/usr/lib/x86_64-linux-gnu/";
        assertThat(f.libraries()).extracting(Bind::containerPath).containsExactly(
                "/usr/lib/x86_64-linux-gnu/libcuda.so." + V, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + V,
                "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so." + V,
                "/usr/lib/x86_64-linux-gnu/libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1");
        assertThat(f.libraries()).filteredOn(b -> b.containerPath().endsWith("libcuda.so.1")).extracting(Bind::hostPath)
                .containsExactly(lib + "libcuda.so." + V);
        assertThat(f.utilities()).extracting(Bind::containerPath).containsExactly("/usr/bin/nvidia-smi", "/usr/bin/nvidia-cuda-mps-control");
        assertThat(f.firmware()).extracting(Bind::containerPath).containsExactly("/lib/firmware/nvidia/" + V);
        assertThat(f.nodesFor(java.util.List.of(1))).extracting(DeviceNode::containerPath).containsExactly("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm");
        assertThat(f.nodesFor(java.util.List.of(1)).getFirst().hostPath()).isEqualTo(root + "/dev/nvidia1");
    }

    @Test void find_gkeLayoutNamedByTheLoadersCache_utilitiesBesideTheLibraries(@TempDir Path root) throws IOException {
        new DriverTrees(root).library("opt/nv/lib64", "libcuda").library("opt/nv/lib64", "libnvidia-ml").program("opt/nv/bin/nvidia-smi").devices("nvidia0");
        try (InputStream in = getClass().getResourceAsStream("/driver/ld.so.cache")) {   // ldconfig's cache naming /usr/local/nvidia/lib64
            Files.createDirectories(root.resolve("etc"));
            Files.write(root.resolve("etc/ld.so.cache"), in.readAllBytes());
        }
        new DriverTrees(root).library("usr/local/nvidia/lib64", "libcuda").library("usr/local/nvidia/lib64", "libnvidia-ml")
                .program("usr/local/nvidia/bin/nvidia-smi").program("usr/local/nvidia/bin/nvidia-cuda-mps-control");
        DriverFiles f = found(DriverDiscovery.find(DriverRoots.onHost(root, root), V, ONE_GPU, Optional.empty()));
        assertThat(f.libraries()).extracting(Bind::containerPath).contains("/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1")
                .noneMatch(p -> p.startsWith("/opt"));
        assertThat(f.utilities()).extracting(Bind::containerPath).containsExactly("/usr/local/nvidia/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-cuda-mps-control");
    }

    @Test void find_aUtilityInTwoFolders_bothBound_aWrapperFindsWhatItRuns(@TempDir Path root) throws IOException {
        new DriverTrees(root).library("usr/local/nvidia/lib64", "libcuda").library("usr/local/nvidia/lib64", "libnvidia-ml")
                .program("usr/local/nvidia/bin/nvidia-smi").program("usr/bin/nvidia-smi").devices("nvidia0");
        DriverFiles f = found(DriverDiscovery.find(DriverRoots.onHost(root, root), V, ONE_GPU,
                Optional.of(root.resolve("usr/local/nvidia/lib64/libnvidia-ml.so." + V))));
        assertThat(f.utilities()).extracting(Bind::containerPath).containsExactly("/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi");
    }

    @Test void find_theFolderNvmlWasLoadedFromComesFirst(@TempDir Path root) throws IOException {
        new DriverTrees(root).library("opt/nv/lib64", "libcuda").library("opt/nv/lib64", "libnvidia-ml").program("opt/nv/bin/nvidia-smi").devices("nvidia0");
        DriverFiles f = found(DriverDiscovery.find(DriverRoots.onHost(root, root), V, ONE_GPU,
                Optional.of(root.resolve("opt/nv/lib64/libnvidia-ml.so." + V))));
        assertThat(f.libraries()).extracting(Bind::containerPath).contains("/opt/nv/lib64/libcuda.so.1");
        assertThat(f.utilities()).extracting(Bind::containerPath).containsExactly("/opt/nv/bin/nvidia-smi");
    }

    @Test void find_driverRootSeenThroughAMount_hostPathsUnderTheHostRoot(@TempDir Path seen) throws IOException {
        hostInstall(seen);
        var roots = new DriverRoots(Path.of("/run/nvidia/driver"), seen, Path.of("/"), seen);
        DriverFiles f = found(DriverDiscovery.find(roots, V, ONE_GPU, Optional.empty()));
        assertThat(f.libraries().getFirst()).isEqualTo(new Bind("/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libcuda.so." + V,
                "/usr/lib/x86_64-linux-gnu/libcuda.so." + V));
        assertThat(f.nodesFor(java.util.List.of(0)).getFirst()).isEqualTo(new DeviceNode("/dev/nvidia0", "/dev/nvidia0"));
    }

    @Test void find_anotherDriverVersion_missingNamesTheLibraryAndWhereItLooked(@TempDir Path root) throws IOException {
        hostInstall(root);
        var r = DriverDiscovery.find(DriverRoots.onHost(root, root), "590.1.2", ONE_GPU, Optional.empty());
        assertThat(r).isInstanceOf(DriverDiscovery.Missing.class);
        assertThat(((DriverDiscovery.Missing) r).reason()).contains("no libcuda.so.590.1.2").contains("x86_64-linux-gnu").contains("--driver-root");
    }

    @Test void find_gpuWithoutItsNode_missing(@TempDir Path root) throws IOException {
        hostInstall(root);
        var r = DriverDiscovery.find(DriverRoots.onHost(root, root), V, Map.of(0, 0, 2, 2), Optional.empty());
        assertThat(((DriverDiscovery.Missing) r).reason()).contains("dev/nvidia2").contains("GPU 2");
    }

    @Test void find_linkLeavingTheRoot_notBound(@TempDir Path tmp) throws IOException {
        Path root = tmp.resolve("root");
        hostInstall(root);
        new DriverTrees(tmp).program("elsewhere/nvidia-persistenced");
        new DriverTrees(root).link("usr/bin/nvidia-persistenced", tmp.resolve("elsewhere/nvidia-persistenced").toString());
        DriverFiles f = found(DriverDiscovery.find(DriverRoots.onHost(root, root), V, ONE_GPU, Optional.empty()));
        assertThat(f.utilities()).extracting(Bind::containerPath).doesNotContain("/usr/bin/nvidia-persistenced");
    }
}
