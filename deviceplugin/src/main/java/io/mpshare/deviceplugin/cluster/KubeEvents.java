package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The agent's core/v1 Events, on a pod ({@code involvedObject} kind Pod with its UID) or on the Node (namespace
 * {@code default}, as kubelet does), source and reporting component {@value #COMPONENT} on this node. Posted on the
 * given executor, so no caller waits for the API server; a failed post is logged and dropped. Messages are cut to
 * {@value #MAX_MESSAGE} characters.
 */
public final class KubeEvents {
    private static final Logger LOG = Logger.getLogger(KubeEvents.class.getName());
    public static final String COMPONENT = "mpshare-device-plugin";
    static final int MAX_MESSAGE = 1024;

    private final String node;
    private final Consumer<Event> create;
    private final Executor executor;
    private final AtomicLong seq = new AtomicLong();

    /** Events created through {@code client}, posted on {@code executor}. */
    public KubeEvents(KubernetesClient client, String node, Executor executor) {
        this(node, ev -> client.v1().events().inNamespace(ev.getMetadata().getNamespace()).resource(ev).create(), executor);
    }

    /** Events handed to {@code create} on {@code executor} (a failure it throws is logged and dropped). */
    public KubeEvents(String node, Consumer<Event> create, Executor executor) {
        this.node = node;
        this.create = create;
        this.executor = executor;
    }

    /** An Event on the pod; {@code fieldPath} (e.g. {@code spec.containers{main}}) may be null. */
    public Event onPod(PodKey pod, String uid, String fieldPath, String reason, boolean warning, String message, Instant at) {
        return base(reason, warning, message, at).withNewMetadata().withNamespace(pod.namespace()).withName(pod.name() + suffix(at)).endMetadata()
                .withNewInvolvedObject().withKind("Pod").withApiVersion("v1").withNamespace(pod.namespace()).withName(pod.name())
                .withUid(uid).withFieldPath(fieldPath).endInvolvedObject().build();
    }

    /** An Event on this node's Node. */
    public Event onNode(String reason, boolean warning, String message, Instant at) {
        return base(reason, warning, message, at).withNewMetadata().withNamespace("default").withName(node + suffix(at)).endMetadata()
                .withNewInvolvedObject().withKind("Node").withApiVersion("v1").withName(node).withUid(node).endInvolvedObject().build();
    }

    private EventBuilder base(String reason, boolean warning, String message, Instant at) {
        String ts = at.toString();
        return new EventBuilder().withReason(reason).withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message)
                .withType(warning ? "Warning" : "Normal")
                .withFirstTimestamp(ts).withLastTimestamp(ts).withCount(1)
                .withNewSource().withComponent(COMPONENT).withHost(node).endSource()
                .withReportingComponent(COMPONENT).withReportingInstance(COMPONENT + "-" + node);
    }

    /** kubelet's form: {@code <object>.<hex nanoseconds>}; a counter keeps two events of one instant apart. */
    private String suffix(Instant at) {
        return "." + Long.toHexString(at.getEpochSecond() * 1_000_000_000L + at.getNano()) + Long.toHexString(seq.incrementAndGet() & 0xfff);
    }

    /** Creates the Event on the executor. */
    public void post(Event ev) {
        try {
            executor.execute(() -> create(ev));
        } catch (RejectedExecutionException x) {
            LOG.fine("event dropped (shutting down): " + ev.getReason());
        }
    }

    private void create(Event ev) {
        try {
            create.accept(ev);
        } catch (RuntimeException x) {
            LOG.warning("posting event " + ev.getReason() + " on " + ev.getInvolvedObject().getKind() + " " + ev.getInvolvedObject().getName()
                    + " failed: " + x.getMessage());
        }
    }
}
