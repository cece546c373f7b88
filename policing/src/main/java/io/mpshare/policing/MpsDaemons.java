package io.mpshare.policing;

import io.mpshare.mps.MpsControl;

import java.util.List;

/**
 * The control daemons serving clients on this node now: one, or two during a blue/green upgrade.
 * {@code terminate_client} must go to the daemon whose server serves the client; the policer finds it
 * by asking each daemon for its servers and their clients.
 */
@FunctionalInterface
public interface MpsDaemons {
    List<MpsControl> daemons();

    static MpsDaemons of(MpsControl... controls) {
        List<MpsControl> l = List.of(controls);
        return () -> l;
    }
}
