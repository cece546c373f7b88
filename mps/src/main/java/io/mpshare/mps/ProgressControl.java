package io.mpshare.mps;

import java.util.List;

/**
 * The supervisor's view of its {@link MpsControl}: the same calls, each followed by a progress mark, so that
 * {@link MpsSupervisor#busyFor()} measures the time since the supervisor's thread last finished a control command, not
 * since its step began. A step of several commands on a loaded machine (each a short-lived process: about a second apiece
 * at load 15 on two cores) is then busy, not hung; one command that does not return is hung.
 */
final class ProgressControl implements MpsControl {
    private final MpsControl d;
    private final Runnable progress;

    ProgressControl(MpsControl delegate, Runnable progress) {
        this.d = delegate;
        this.progress = progress;
    }

    @Override public boolean daemonUp() {
        try { return d.daemonUp(); } finally { progress.run(); }
    }

    @Override public List<Long> serverPids() {
        try { return d.serverPids(); } finally { progress.run(); }
    }

    @Override public List<Long> clientPids(long serverPid) {
        try { return d.clientPids(serverPid); } finally { progress.run(); }
    }

    @Override public void setDefaultPinnedMemLimit(int device, long mib) {
        try { d.setDefaultPinnedMemLimit(device, mib); } finally { progress.run(); }
    }

    @Override public long defaultPinnedMemLimit(int device) {
        try { return d.defaultPinnedMemLimit(device); } finally { progress.run(); }
    }

    @Override public void setServerPinnedMemLimit(long serverPid, int device, long mib) {
        try { d.setServerPinnedMemLimit(serverPid, device, mib); } finally { progress.run(); }
    }

    @Override public long serverPinnedMemLimit(long serverPid, int device) {
        try { return d.serverPinnedMemLimit(serverPid, device); } finally { progress.run(); }
    }

    @Override public void setDefaultActiveThreadPercentage(int percent) {
        try { d.setDefaultActiveThreadPercentage(percent); } finally { progress.run(); }
    }

    @Override public void setServerActiveThreadPercentage(long serverPid, int percent) {
        try { d.setServerActiveThreadPercentage(serverPid, percent); } finally { progress.run(); }
    }

    @Override public double serverActiveThreadPercentage(long serverPid) {
        try { return d.serverActiveThreadPercentage(serverPid); } finally { progress.run(); }
    }

    @Override public String serverStatus(long serverPid) {
        try { return d.serverStatus(serverPid); } finally { progress.run(); }
    }

    @Override public void terminateClient(long serverPid, long clientPid) {
        try { d.terminateClient(serverPid, clientPid); } finally { progress.run(); }
    }

    @Override public void quit() {
        try { d.quit(); } finally { progress.run(); }
    }
}
