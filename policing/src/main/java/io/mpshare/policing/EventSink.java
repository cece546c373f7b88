package io.mpshare.policing;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Receives the policer's events. Called on the policer's thread, in the cycle that saw the finding:
 * implementations queue and return (the device plugin posts Kubernetes Events asynchronously).
 */
@FunctionalInterface
public interface EventSink {
    void emit(PolicerEvent event);

    /** Writes each event to java.util.logging (host mode's default). */
    static EventSink logging() {
        var log = Logger.getLogger("io.mpshare.policing");
        return e -> log.log(e.kind().warning() ? Level.WARNING : Level.INFO,
                "{0} gpu={1} pod={2} pid={3}: {4}", new Object[] {e.reason(), e.gpu(),
                e.pod().map(Object::toString).orElse(e.podUid()), e.pid(), e.message()});
    }
}
