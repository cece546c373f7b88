package io.mpshare.policing;

import java.util.List;

/**
 * Where the policer learns which GPU processes are MPS servers: the reports of mpshare's own supervisors, one per
 * control daemon that may serve clients on this node (both colours during a blue/green upgrade, every fault domain's).
 * The device plugin reads each colour's {@code status.json}; host mode asks its in-process supervisor.
 *
 * <p>Read once per cycle, from the policer's thread: must be cheap. A supervisor that is not there (its colour not
 * deployed) is left out; one whose report exists but cannot be read throws, and the cycle judges nothing rather than
 * take the real server for a rogue.
 */
@FunctionalInterface
public interface MpsServers {
    List<DaemonReport> reports();
}
