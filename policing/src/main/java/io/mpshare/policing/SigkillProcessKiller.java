package io.mpshare.policing;

/**
 * SIGKILL through {@link ProcessHandle#destroyForcibly()}. Needs the host PID namespace and the
 * right to signal the process (root, or CAP_KILL). A process already gone counts as killed.
 */
public final class SigkillProcessKiller implements ProcessKiller {
    @Override
    public boolean kill(long pid) {
        if (pid <= 1 || pid == ProcessHandle.current().pid()) return false;
        return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(true);
    }
}
