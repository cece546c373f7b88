package io.mpshare.policing;

/**
 * Ends a process that no control daemon can end (it is not an MPS client), or a client that
 * {@code terminate_client} did not end in time. The real one is {@link SigkillProcessKiller}.
 */
@FunctionalInterface
public interface ProcessKiller {
    /** @return true when the signal was sent (or the process is already gone) */
    boolean kill(long pid);
}
