package io.mpshare.scheduler.http;

import io.mpshare.core.Names;
import io.mpshare.core.policy.PlacementEngine.Reasons;
import io.mpshare.scheduler.bind.BindOutcome;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.preempt.NominationHold;
import io.mpshare.scheduler.preempt.PreemptVerb;
import io.mpshare.scheduler.requeue.Refusals;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.scheduler.verbs.Verbs.FilterAnswer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The verbs kube-scheduler calls, from request bytes to reply bytes: filter, prioritize, bind, preempt.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Bodies are read into a per-worker buffer up to {@code maxBody} bytes (a Content-Length above it is
 *     refused before reading); past the cap the call is answered with an Error.</li>
 * <li>Until the cluster view has synced (start, restart) every verb answers an Error, which kube-scheduler
 *     retries; an answer from an empty view ("no inventory") would be taken as final.</li>
 * <li>Each call reads the pod's {@link Ask} once and hands it to all it does: a filter that would keep no node
 *     while some were refused only for lack of room asks {@link StaleRoomCheck} to re-read those nodes' pods and
 *     is evaluated again with the same ask when that released stale bookings; the nomination hold judges the same
 *     ask.</li>
 * <li>A filter that keeps no node for a pod tells {@link Refusals} which nodes it refused, with the room sequence it
 *     read before it looked at the ledger, so the pod is woken once room for it appears; one that keeps a node says
 *     so.</li>
 * <li>A filter that keeps more nodes than the shortlist keeps only those the policy ranks best
 *     ({@link Verbs#shortlist}): kube-scheduler scores and prioritizes just those.</li>
 * <li>Prioritize cannot carry an Error (HostPriorityList): its failures answer {@code []}, are logged as
 *     warnings and counted.</li>
 * </ul>
 */
final class VerbCalls {
    private static final Logger LOG = Logger.getLogger(VerbCalls.class.getName());
    static final String NOT_SYNCED = "the mpshare extender has not finished reading the cluster's nodes and pods yet (it just started): "
            + "kube-scheduler will retry this pod in a moment";
    private final Verbs verbs;
    private final Binder binder;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier ready;
    private final StaleRoomCheck recheck;
    private final long maxBody;
    /** The preempt verb and the filter's hold on nominated pods' room; null when preemption is not served. */
    private final PreemptVerb preempt;
    private final NominationHold hold;
    private final Refusals refusals;
    private final WireReader reader = new WireReader();
    private final PreemptWire preemptWire = new PreemptWire(reader);
    private final WireWriter writer = new WireWriter();
    private final PriorityReply priorityReply = new PriorityReply();
    private final ThreadLocal<Body> bodies = ThreadLocal.withInitial(Body::new);

    VerbCalls(Verbs verbs, Binder binder, ExtenderMetrics metrics, BooleanSupplier ready, StaleRoomCheck recheck, long maxBody,
              PreemptVerb preempt, NominationHold hold, Refusals refusals) {
        this.refusals = refusals;
        this.preempt = preempt;
        this.hold = hold;
        this.verbs = verbs;
        this.binder = binder;
        this.metrics = metrics;
        this.ready = ready;
        this.recheck = recheck;
        this.maxBody = maxBody;
    }

    void call(String verb, long contentLength, InputStream in, ByteArrayOutputStream out) throws IOException {
        Body body = null;
        String error = ready.getAsBoolean() ? null : NOT_SYNCED;
        String reason = "not_synced";
        if (error == null) {
            try {
                body = bodies.get();
                body.readFrom(in, contentLength, maxBody);
            } catch (WireException e) {
                error = e.getMessage();
                reason = "bad_request";
            }
        }
        if (error != null) {
            metrics.failure(verb, reason);
            if (verb.equals(Names.EXTENDER_VERB_PRIORITIZE)) LOG.log(Level.WARNING, "prioritize error={0}", error);
            switch (verb) {
                case Names.EXTENDER_VERB_FILTER -> writer.filterResult(out, FilterAnswer.error(error), null);
                case Names.EXTENDER_VERB_PRIORITIZE -> writer.priorities(out, List.of());
                case Names.EXTENDER_VERB_PREEMPT -> out.write(NO_VICTIMS);
                default -> writer.error(out, error);
            }
            return;
        }
        switch (verb) {
            case Names.EXTENDER_VERB_FILTER -> filter(body, out);
            case Names.EXTENDER_VERB_PRIORITIZE -> prioritize(body, out);
            case Names.EXTENDER_VERB_PREEMPT -> preempt(body, out);
            default -> bind(body, out);
        }
    }

    /**
     * The bind verb on the caller's thread (a virtual thread per bind, ExtenderHttpServer): the body is read into a
     * buffer of its own, not the workers' per-thread one, since a bind body is a few hundred bytes.
     */
    void bind(long contentLength, InputStream in, ByteArrayOutputStream out) throws IOException {
        String error = ready.getAsBoolean() ? null : NOT_SYNCED;
        String reason = "not_synced";
        Body body = new Body(1024);
        if (error == null) {
            try {
                body.readFrom(in, contentLength, maxBody);
            } catch (WireException e) {
                error = e.getMessage();
                reason = "bad_request";
            }
        }
        if (error != null) {
            metrics.failure(Names.EXTENDER_VERB_BIND, reason);
            writer.error(out, error);
            return;
        }
        bind(body, out);
    }

    private static final byte[] NO_VICTIMS = "{\"NodeNameToMetaVictims\":{}}".getBytes(StandardCharsets.UTF_8);

    /**
     * kube-scheduler's preemptVerb ({@link PreemptVerb}); without one configured, no node is offered. The result type
     * has no error field and kube-scheduler fails the whole preemption on a non-200 status, so a request that cannot
     * be read is answered with no node (nothing is preempted) and logged.
     */
    private void preempt(Body body, ByteArrayOutputStream out) throws IOException {
        if (preempt == null) { out.write(NO_VICTIMS); return; }
        Map<String, PreemptVerb.MetaVictims> result;
        try {
            PreemptWire.Args args = preemptWire.read(new ByteArrayInputStream(body.bytes, 0, body.length));
            result = preempt.decide(verbs.ask(args.pod()), args.priority(), args.nodes());
        } catch (WireException e) {
            LOG.log(Level.WARNING, "preempt error={0}", e.getMessage());
            result = Map.of();
        }
        preemptWire.write(result, out);
    }

    private void filter(Body body, ByteArrayOutputStream out) {
        ExtenderArgs args;
        try {
            args = reader.extenderArgs(body.bytes, body.length);
        } catch (WireException e) {
            metrics.failure(Names.EXTENDER_VERB_FILTER, "bad_request");
            writer.filterResult(out, FilterAnswer.error(e.getMessage()), null);
            return;
        }
        Ask ask = verbs.ask(args.pod());
        long seq = refusals.sequence();
        RawNames raw = args.rawNames();
        if (raw != null) { // the common case: names looked up and echoed as bytes; reasons only when none is kept
            Verbs.IndexedFilterAnswer a = verbs.filter(ask, raw.buf(), raw.off(), raw.len(), raw.hash(), raw.count(), Reasons.WHEN_NONE_KEPT);
            if (a.error().isEmpty() && a.fitCount() == 0 && !a.failed().isEmpty() && recheck.refresh(a.failed().keySet()) > 0)
                a = verbs.filter(ask, raw.buf(), raw.off(), raw.len(), raw.hash(), raw.count(), Reasons.WHEN_NONE_KEPT);
            if (a.fitCount() > 0 && hold != null && hold.active() && ask instanceof Ask.Gpu g) {
                a = hold.apply(g, a, raw.buf(), raw.off(), raw.len());
                if (a.fitCount() == 0) // every kept node is held for a nominee: now the pod fits nowhere, and every refusal needs its reason
                    a = hold.apply(g, verbs.filter(ask, raw.buf(), raw.off(), raw.len(), raw.hash(), raw.count(), Reasons.ALWAYS), raw.buf(), raw.off(), raw.len());
            }
            a = verbs.shortlist(ask, a, raw.buf(), raw.off(), raw.len(), raw.hash(), args.prefers()); // kube-scheduler scores only what is kept
            count(args, a.error(), a.fitCount() == 0 && raw.count() > 0);
            note(ask, a.fitCount() > 0, a.failed(), a.unresolvable(), seq);
            writer.filterResult(out, a, raw);
            return;
        }
        // full Node objects (nodeCacheCapable off) or names with escapes: every node that fits, no shortlist
        FilterAnswer a = verbs.filter(ask, args.nodeNames());
        if (a.error().isEmpty() && a.fits().isEmpty() && !a.failed().isEmpty() && recheck.refresh(a.failed().keySet()) > 0)
            a = verbs.filter(ask, args.nodeNames());
        if (!a.fits().isEmpty() && hold != null && hold.active() && ask instanceof Ask.Gpu g)
            a = hold.apply(g, a);
        count(args, a.error(), a.fits().isEmpty() && !args.nodeNames().isEmpty());
        note(ask, !a.fits().isEmpty(), a.failed(), a.unresolvable(), seq);
        writer.filterResult(out, a, args.rawNodes());
    }

    /** Tells the requeue that the pod was kept somewhere, or refused everywhere and where. */
    private void note(Ask ask, boolean kept, Map<String, String> failed, Map<String, String> unresolvable, long seq) {
        if (!(ask instanceof Ask.Gpu g)) return;
        if (kept) { refusals.kept(g.pod().key()); return; }
        List<String> nodes = new ArrayList<>(failed.size() + unresolvable.size());
        nodes.addAll(failed.keySet());
        nodes.addAll(unresolvable.keySet());
        refusals.refused(g, nodes, seq);
    }

    private void count(ExtenderArgs args, String error, boolean noneFits) {
        if (!error.isEmpty()) {
            metrics.failure(Names.EXTENDER_VERB_FILTER, "bad_pod");
            LOG.log(Level.INFO, "filter pod={0}/{1} error={2}", new Object[] {args.pod().namespace(), args.pod().name(), error});
        } else if (noneFits) {
            metrics.failure(Names.EXTENDER_VERB_FILTER, "no_node_fits");
        }
    }

    private void prioritize(Body body, ByteArrayOutputStream out) {
        try {
            ExtenderArgs args = reader.extenderArgs(body.bytes, body.length);
            RawNames raw = args.rawNames();
            String error;
            if (raw != null) { // the common case: names looked up and echoed as bytes, as in filter
                Verbs.IndexedPrioritizeAnswer a = verbs.prioritize(verbs.ask(args.pod()), raw.buf(), raw.off(), raw.len(), raw.hash(), raw.count());
                error = a.error();
                if (error.isEmpty()) priorityReply.write(out, a.scores(), raw);
                else writer.priorities(out, List.of());
            } else {
                Verbs.PrioritizeAnswer a = verbs.prioritize(verbs.ask(args.pod()), args.nodeNames());
                error = a.error();
                writer.priorities(out, a.scores());
            }
            if (!error.isEmpty()) {
                metrics.failure(Names.EXTENDER_VERB_PRIORITIZE, "bad_pod");
                LOG.log(Level.WARNING, "prioritize pod={0}/{1} error={2}", new Object[] {args.pod().namespace(), args.pod().name(), error});
            }
        } catch (WireException e) {
            metrics.failure(Names.EXTENDER_VERB_PRIORITIZE, "bad_request");
            LOG.log(Level.WARNING, "prioritize error={0}", e.getMessage());
            writer.priorities(out, List.of());
        }
    }

    private void bind(Body body, ByteArrayOutputStream out) {
        BindingArgs args;
        try {
            args = reader.bindingArgs(new ByteArrayInputStream(body.bytes, 0, body.length));
        } catch (WireException e) {
            metrics.failure(Names.EXTENDER_VERB_BIND, "bad_request");
            writer.error(out, e.getMessage());
            return;
        }
        switch (binder.bind(args.podNamespace(), args.podName(), args.podUid(), args.node())) {
            case BindOutcome.Bound b -> writer.error(out, "");
            case BindOutcome.Failed f -> {
                metrics.failure(Names.EXTENDER_VERB_BIND, f.reason());
                writer.error(out, f.message());
            }
        }
    }

    /** A worker's request body buffer, grown as needed up to the cap and kept (the workers are a small fixed pool). */
    static final class Body {
        byte[] bytes;
        int length;

        Body() { this(128 * 1024); }

        Body(int capacity) { bytes = new byte[capacity]; }

        void readFrom(InputStream in, long contentLength, long max) throws IOException, WireException {
            if (contentLength > max) throw tooLarge(contentLength + " bytes", max);
            length = 0;
            int r;
            while ((r = in.read(bytes, length, bytes.length - length)) >= 0) {
                length += r;
                if (length > max) throw tooLarge("more than " + max + " bytes", max);
                if (length == bytes.length) bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(bytes.length * 2L, 16)));
            }
        }

        private static WireException tooLarge(String size, long max) {
            return new WireException("the request body has " + size + ", above the extender's limit of " + max
                    + " bytes: raise --max-request-bytes if kube-scheduler really sends that much");
        }
    }
}
