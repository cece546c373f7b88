package io.mpshare.cli.layering;

import io.mpshare.admission.review.PodAdmission;
import io.mpshare.cli.Main;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.deviceplugin.ceiling.CeilingController;
import io.mpshare.host.HostRuntime;
import io.mpshare.inspect.GpuReport;
import io.mpshare.kube.KubePod;
import io.mpshare.mps.Backoff;
import io.mpshare.nvml.Xids;
import io.mpshare.policing.Evictor;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.sim.model.Models;
import io.mpshare.testing.ClassRefs;
import io.mpshare.upgrade.plan.UpgradeOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One logging API: {@code java.util.logging}, everywhere (docs/decisions/one-logging-api.md). No main class refers to
 * {@code System.Logger} or {@code System.getLogger}; checked on the compiled classes of every product module
 * ({@code cli} depends on all of them) with {@link ClassRefs}, and shown failing on a deliberate violation.
 */
class OneLoggingApiTest {
    /** A module by a class of its. */
    record Module(String name, Class<?> marker) {
        @Override public String toString() { return name; }
    }

    static final List<Module> MODULES = List.of(
            new Module("core", AllocationCodec.class), new Module("kube", KubePod.class), new Module("nvml", Xids.class),
            new Module("mps", Backoff.class), new Module("policing", Evictor.class),
            new Module("scheduler", SchedulerExtender.class), new Module("deviceplugin", CeilingController.class),
            new Module("admission", PodAdmission.class), new Module("inspect", GpuReport.class),
            new Module("host", HostRuntime.class), new Module("upgrade", UpgradeOptions.class),
            new Module("simulator", Models.class), new Module("cli", Main.class));

    static List<String> violations(List<ClassRefs.Ref> refs) {
        return refs.stream()
                .filter(r -> r.target().startsWith("java.lang.System$Logger") || r.target().equals("java.lang.System.getLogger"))
                .map(ClassRefs.Ref::toString).toList();
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("MODULES")
    void mainClasses_logThroughJavaUtilLogging(Module module) {
        List<ClassRefs.Ref> refs = ClassRefs.ofModule(module.marker());
        assertThat(refs).as("compiled main classes of " + module).isNotEmpty();
        assertThat(violations(refs)).as("System.Logger in " + module + " (log through java.util.logging)").isEmpty();
    }

    @Test
    void violations_systemLogger_found(@TempDir Path dir) throws IOException {
        Path classes = ClassRefs.compile(dir.resolve("classes"), Map.of("io/mpshare/x/Bad.java", """
                package io.mpshare.x;
                class Bad {
                    void run() { System.getLogger("x").log(System.Logger.Level.INFO, "hello"); }
                }
                """));
        assertThat(violations(ClassRefs.in(classes))).contains(
                "io/mpshare/x/Bad.class refers to java.lang.System.getLogger",
                "io/mpshare/x/Bad.class refers to java.lang.System$Logger",
                "io/mpshare/x/Bad.class refers to java.lang.System$Logger$Level");
    }
}
