package io.mpshare.deviceplugin.health;

/**
 * Answers whether the node's MPS control daemon serves clients. Implementations: the supervisor's local status
 * endpoint, or {@code MpsControl::daemonUp} directly. A probe that throws counts as down.
 */
@FunctionalInterface
public interface DaemonProbe {
    boolean daemonUp() throws Exception;
}
