package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.model.PodKey;
import io.mpshare.policing.EventSink;
import io.mpshare.policing.PolicerEvent;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * The policer's events as core/v1 Kubernetes Events: on the pod ({@code involvedObject} kind Pod with its UID) when the
 * event names one, on the Node otherwise (an unknown process; namespace {@code default}, as kubelet does). Type Warning
 * for every kind but {@code POD_ENDED}; reason = {@link PolicerEvent#reason()}. Posted on the given executor: the
 * policer's thread never waits for the API server. A failed post is logged and dropped (the metric counted it).
 */
public final class KubeEventSink implements EventSink {
    private static final Logger LOG = Logger.getLogger(KubeEventSink.class.getName());
    public static final String COMPONENT = "mpshare-device-plugin";
    private static final int MAX_MESSAGE = 1024;

    private final KubernetesClient client;
    private final String node;
    private final PodIndex pods;
    private final Executor executor;
    private final java.util.concurrent.atomic.AtomicLong seq = new java.util.concurrent.atomic.AtomicLong();

    public KubeEventSink(KubernetesClient client, String node, PodIndex pods, Executor executor) {
        this.client = client;
        this.node = node;
        this.pods = pods;
        this.executor = executor;
    }

    @Override public void emit(PolicerEvent e) {
        Event ev = toEvent(e);
        if (ev == null) return;
        try {
            executor.execute(() -> post(ev));
        } catch (RejectedExecutionException x) {
            LOG.fine("event dropped (shutting down): " + e.reason());
        }
    }

    /** The Event to create, or null when it names a pod this node no longer knows. */
    Event toEvent(PolicerEvent e) {
        String message = message(e);
        String ts = e.at().toString();
        var b = new EventBuilder().withReason(e.reason()).withMessage(message)
                .withType(e.kind().warning() ? "Warning" : "Normal")
                .withFirstTimestamp(ts).withLastTimestamp(ts).withCount(1)
                .withNewSource().withComponent(COMPONENT).withHost(node).endSource()
                .withReportingComponent(COMPONENT).withReportingInstance(COMPONENT + "-" + node);
        // kubelet's form: <object>.<hex nanoseconds>; a counter keeps two events of one cycle apart
        String suffix = "." + Long.toHexString(e.at().getEpochSecond() * 1_000_000_000L + e.at().getNano()) + Long.toHexString(seq.incrementAndGet() & 0xfff);
        if (e.podUid().isEmpty()) {
            return b.withNewMetadata().withNamespace("default").withName(node + suffix).endMetadata()
                    .withNewInvolvedObject().withKind("Node").withApiVersion("v1").withName(node).withUid(node).endInvolvedObject().build();
        }
        Optional<PodKey> pod = e.pod().or(() -> pods.get(e.podUid()));
        if (pod.isEmpty()) {
            LOG.info("policer event for pod " + e.podUid() + " that is not on this node any more: " + e.reason() + " " + message);
            return null;
        }
        PodKey k = pod.get();
        return b.withNewMetadata().withNamespace(k.namespace()).withName(k.name() + suffix).endMetadata()
                .withNewInvolvedObject().withKind("Pod").withApiVersion("v1").withNamespace(k.namespace()).withName(k.name())
                .withUid(e.podUid()).withFieldPath(e.container().isEmpty() ? null : "spec.containers{" + e.container() + "}").endInvolvedObject().build();
    }

    private static String message(PolicerEvent e) {
        StringBuilder sb = new StringBuilder(e.message());
        if (e.gpu() >= 0 && !e.message().toLowerCase(Locale.ROOT).contains("gpu")) sb.append(" (GPU ").append(e.gpu()).append(')');
        if (e.pid() > 0 && !e.message().contains(Long.toString(e.pid()))) sb.append(" pid ").append(e.pid());
        return sb.length() > MAX_MESSAGE ? sb.substring(0, MAX_MESSAGE) : sb.toString();
    }

    private void post(Event ev) {
        try {
            client.v1().events().inNamespace(ev.getMetadata().getNamespace()).resource(ev).create();
        } catch (RuntimeException x) {
            LOG.warning("posting event " + ev.getReason() + " on " + ev.getInvolvedObject().getKind() + " " + ev.getInvolvedObject().getName()
                    + " failed: " + x.getMessage());
        }
    }
}
