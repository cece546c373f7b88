package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.Event;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.KubeEvents;
import io.mpshare.policing.EventSink;
import io.mpshare.policing.PolicerEvent;

import java.util.Locale;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The policer's events as core/v1 Kubernetes Events ({@link KubeEvents}): on the pod when the event names one, on the
 * Node otherwise (an unknown process). Type Warning for every kind but {@code POD_ENDED}; reason =
 * {@link PolicerEvent#reason()}. Posted off the policer's thread: it never waits for the API server.
 */
public final class KubeEventSink implements EventSink {
    private static final Logger LOG = Logger.getLogger(KubeEventSink.class.getName());

    private final KubeEvents events;
    private final PodIndex pods;

    public KubeEventSink(KubeEvents events, PodIndex pods) {
        this.events = events;
        this.pods = pods;
    }

    @Override public void emit(PolicerEvent e) {
        Event ev = toEvent(e);
        if (ev != null) events.post(ev);
    }

    /** The Event to create, or null when it names a pod this node no longer knows. */
    Event toEvent(PolicerEvent e) {
        String message = message(e);
        if (e.podUid().isEmpty()) return events.onNode(e.reason(), e.kind().warning(), message, e.at());
        Optional<PodKey> pod = e.pod().or(() -> pods.get(e.podUid()));
        if (pod.isEmpty()) {
            LOG.info("policer event for pod " + e.podUid() + " that is not on this node any more: " + e.reason() + " " + message);
            return null;
        }
        return events.onPod(pod.get(), e.podUid(), e.container().isEmpty() ? null : "spec.containers{" + e.container() + "}",
                e.reason(), e.kind().warning(), message, e.at());
    }

    private static String message(PolicerEvent e) {
        StringBuilder sb = new StringBuilder(e.message());
        if (e.gpu() >= 0 && !e.message().toLowerCase(Locale.ROOT).contains("gpu")) sb.append(" (GPU ").append(e.gpu()).append(')');
        if (e.pid() > 0 && !e.message().contains(Long.toString(e.pid()))) sb.append(" pid ").append(e.pid());
        return sb.toString();
    }
}
