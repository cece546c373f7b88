package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The supervisor's settings on a running daemon, through {@link MpsControl}: a ceiling goes to the
 * default (future servers) and to every running server; a server that exits meanwhile is skipped.
 * Every setter of {@link ProcessMpsControl} reads its value back, so a return means "applied".
 */
final class DaemonSettings {
    private final MpsControl control;

    DaemonSettings(MpsControl control) { this.control = control; }

    /** {@code set_default_device_pinned_mem_limit} and {@code set_device_pinned_mem_limit} on each running server. */
    void applyCeiling(int device, long mib) {
        control.setDefaultPinnedMemLimit(device, mib);
        for (long server : control.serverPids()) {
            try {
                control.setServerPinnedMemLimit(server, device, mib);
            } catch (MpsException e) {
                if (e.reason() != Reason.SERVER_NOT_FOUND) throw e; // it exited meanwhile: nothing to cap
            }
        }
    }

    /**
     * Reads each running server's ceiling back and puts back any that differ from what the supervisor set. A client
     * of a server's own UID may change that server's ceiling (measured on the H200, driver 580: the daemon answers
     * {@code set_device_pinned_mem_limit <server> ...} from the server's UID though it refuses the default and
     * {@code quit}); a new client of that server would then connect under the raised cap.
     *
     * @param servers the running servers, as just read
     * @return one line per ceiling put back, naming the server, the GPU and the value found
     */
    List<String> restoreCeilings(List<Long> servers, Map<Integer, Long> ceilings) {
        List<String> restored = new ArrayList<>();
        for (long server : servers) {
            for (var c : ceilings.entrySet()) {
                try {
                    long found = control.serverPinnedMemLimit(server, c.getKey());
                    if (found == c.getValue()) continue;
                    control.setServerPinnedMemLimit(server, c.getKey(), c.getValue());
                    restored.add("server " + server + " GPU " + c.getKey() + ": " + (found < 0 ? "none" : found + " MiB") + " -> " + c.getValue() + " MiB");
                } catch (MpsException e) {
                    if (e.reason() != Reason.SERVER_NOT_FOUND) throw e;
                }
            }
        }
        return restored;
    }

    /**
     * {@code set_default_active_thread_percentage} for future servers and {@code set_active_thread_percentage} on each
     * running one: the default alone does not reach a server already running (measured: an idle server kept for its UID
     * stayed at 100 % with the default at 25 %, and its new clients saw every SM).
     */
    void applyThreadPercentage(int percent) {
        control.setDefaultActiveThreadPercentage(percent);
        for (long server : control.serverPids()) {
            try {
                control.setServerActiveThreadPercentage(server, percent);
            } catch (MpsException e) {
                if (e.reason() != Reason.SERVER_NOT_FOUND) throw e;
            }
        }
    }

    /**
     * Reads each running server's active thread percentage back and puts back one that differs (a server that started
     * before the default was set, or one a client of its own UID changed).
     *
     * @return one line per server put back
     */
    List<String> restoreThreadPercentage(List<Long> servers, int percent) {
        List<String> restored = new ArrayList<>();
        for (long server : servers) {
            try {
                double found = control.serverActiveThreadPercentage(server);
                if (Math.abs(found - percent) < 0.01) continue;
                control.setServerActiveThreadPercentage(server, percent);
                restored.add("server " + server + " active thread percentage: " + found + " -> " + percent);
            } catch (MpsException e) {
                if (e.reason() != Reason.SERVER_NOT_FOUND) throw e;
            }
        }
        return restored;
    }

    /** The running servers and their clients; a server that exits while being read is left out. */
    List<SupervisorStatus.Server> readServers() {
        List<SupervisorStatus.Server> out = new ArrayList<>();
        for (long pid : control.serverPids()) {
            try {
                out.add(new SupervisorStatus.Server(pid, control.clientPids(pid)));
            } catch (MpsException e) {
                if (e.reason() != Reason.SERVER_NOT_FOUND) throw e;
            }
        }
        return List.copyOf(out);
    }
}
