package io.mpshare.deviceplugin.ceiling;

import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.testing.ManualScheduler;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * One colour's real {@link MpsSupervisor} over a modelled daemon that keeps limits in whole GiB, as the H200's does, on a
 * manual clock; {@link #target()} reaches it as the controller would, minus the socket ({@code CeilingSocketIT} has it).
 */
final class SupervisorDaemon {
    final FakeMpsControl mps = new FakeMpsControl().keepingWholeGib();
    final FakeDaemonLauncher launcher = new FakeDaemonLauncher(mps);
    final ManualScheduler clock;
    final Colour colour;
    final Path runDir;
    MpsSupervisor supervisor;

    SupervisorDaemon(Colour colour, Path runDir, ManualScheduler clock) {
        this.colour = colour;
        this.runDir = runDir;
        this.clock = clock;
        mps.crash(); // no daemon until the supervisor starts one
        supervisor = newSupervisor();
    }

    MpsSupervisor newSupervisor() {
        return new MpsSupervisor(SupervisorConfig.defaults(colour, runDir), launcher, mps, clock, clock, new SupervisorMetrics(colour));
    }

    SupervisorDaemon start() {
        supervisor.start();
        clock.advance(Duration.ofMillis(200)); // the first probe: up, settings applied
        return this;
    }

    CeilingTarget target() {
        return new CeilingTarget() {
            @Override public SupervisorStatus status() { return supervisor.status(); }

            @Override public void setCeiling(int device, long mib) {
                var f = supervisor.setCeiling(device, mib);
                clock.runDue();
                try {
                    f.join();
                } catch (CompletionException e) {
                    throw e.getCause() instanceof MpsException m ? m : e;
                }
            }
        };
    }
}
