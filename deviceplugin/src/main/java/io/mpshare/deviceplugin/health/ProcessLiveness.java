package io.mpshare.deviceplugin.health;

/**
 * Whether a host process is really running. {@code ProcessHandle.isAlive()} is not enough: a daemon killed while its
 * parent (the supervisor) is stopped stays a zombie, which {@code isAlive()} counts as alive (devices
 * would stay Healthy for 8-17 s after their daemon died). Production: {@link ProcStatLiveness}; tests inject their own.
 */
@FunctionalInterface
public interface ProcessLiveness {
    boolean alive(long pid);
}
