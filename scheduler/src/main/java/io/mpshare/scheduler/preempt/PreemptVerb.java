package io.mpshare.scheduler.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.policy.VictimSelection;
import io.mpshare.kube.PodFacts;
import io.mpshare.scheduler.Verbs;
import io.mpshare.scheduler.http.WireException;
import io.mpshare.scheduler.http.WireReader;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code preemptVerb}: {@code ExtenderPreemptionArgs {Pod, NodeNameToVictims, NodeNameToMetaVictims}}
 * in, {@code ExtenderPreemptionResult {NodeNameToMetaVictims}} out (Go field names as keys; {@code MetaVictims
 * {Pods: [{UID}], NumPDBViolations}}).
 *
 * <p>kube-scheduler proposes victims by node totals; this answer replaces them, per candidate node, with the
 * pods whose removal frees one GPU for the preemptor ({@link VictimSelection}); a node where no GPU can be
 * freed, or where the policy would still refuse the pod without them (the UID rule), is left out, as kube-scheduler
 * requires (a node with no victims is an error to it). Victims are
 * pods bound to the node with a known UID and a priority lower than the preemptor's. PodDisruptionBudgets
 * are not read: each node keeps the {@code NumPDBViolations} kube-scheduler sent for it. The GPUs chosen
 * are remembered ({@link Nominations#decided}) so the filter holds exactly them for the preemptor.
 *
 * <p>The result type has no error field and kube-scheduler fails the whole preemption on a non-200 status,
 * so a request that cannot be read is answered 200 with no node (nothing is preempted) and logged.
 */
public final class PreemptVerb {
    private static final System.Logger LOG = System.getLogger(PreemptVerb.class.getName());
    private final JsonFactory json = JsonFactory.builder().build();
    private final WireReader reader = new WireReader();
    private final Ledger ledger;
    private final Verbs verbs;
    private final Nominations nominations;

    public PreemptVerb(Ledger ledger, Verbs verbs, Nominations nominations) {
        this.ledger = ledger;
        this.verbs = verbs;
        this.nominations = nominations;
    }

    /** The request as read: the preemptor, its priority, and the candidate nodes with kube-scheduler's PDB counts. */
    record Args(PodFacts pod, int priority, Map<String, Long> nodes) {}

    /** One node's victims: their UIDs and the PDB count passed back. */
    record MetaVictims(List<String> uids, long pdbViolations) {}

    /** Reads the request, decides, writes the result; never throws for bad input. */
    public void answer(InputStream in, OutputStream out) throws java.io.IOException {
        Map<String, MetaVictims> result;
        try {
            result = decide(read(in));
        } catch (WireException e) {
            LOG.log(Level.WARNING, "preempt error={0}", e.getMessage());
            result = Map.of();
        }
        write(result, out);
    }

    /** Victims per candidate node, only for nodes where one GPU (or the pod's gpu-count GPUs) can be freed. */
    Map<String, MetaVictims> decide(Args args) {
        if (!(verbs.need(args.pod()) instanceof Verbs.Need.Gpu g)) {
            LOG.log(Level.INFO, "preempt pod={0}/{1} asks no readable GPU share: nothing to preempt", args.pod().namespace(), args.pod().name());
            return Map.of();
        }
        Map<String, MetaVictims> out = new LinkedHashMap<>();
        Map<String, List<Integer>> gpus = new LinkedHashMap<>();
        for (var e : args.nodes().entrySet()) {
            NodeState s = ledger.node(e.getKey());
            if (s == null) continue;
            var choice = VictimSelection.choose(s, g.demand(), args.priority(), nominations::priority, this::eligible);
            switch (choice) {
                case VictimSelection.Choice.Victims v when !VictimSelection.freesRoom(s, v.victims(), g.demand(), verbs.engine().policy()) ->
                        LOG.log(Level.INFO, "preempt pod={0} node={1}: the policy still refuses it without the victims (UID rule?); node left out",
                                g.pod().key(), e.getKey());
                case VictimSelection.Choice.Victims v -> {
                    out.put(e.getKey(), new MetaVictims(v.victims().stream().map(Allocation::podUid).toList(), e.getValue()));
                    gpus.put(e.getKey(), v.gpuIndices());
                }
                case VictimSelection.Choice.NotNeeded n -> LOG.log(Level.DEBUG, "preempt pod={0} node={1} fits without preemption", g.pod().key(), e.getKey());
                case VictimSelection.Choice.NoRoom r -> LOG.log(Level.DEBUG, "preempt pod={0} node={1} reason={2}", g.pod().key(), e.getKey(), r.reason());
            }
        }
        nominations.decided(g.pod().key(), gpus);
        LOG.log(Level.INFO, "preempt pod={0} priority={1} candidates={2} kept={3}", g.pod().key(), String.valueOf(args.priority()),
                String.valueOf(args.nodes().size()), out.keySet());
        return out;
    }

    /** kube-scheduler can name only pods it has on the node: bound ones, by UID, whose priority we know. */
    private boolean eligible(Allocation a) {
        return a.phase() != Phase.ASSUMED && !a.podUid().isEmpty() && nominations.priority(a.pod(), a.podUid()).isPresent();
    }

    Args read(InputStream in) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw new WireException("the preempt request must be a JSON object (ExtenderPreemptionArgs)");
            String podJson = null;
            Map<String, Long> meta = null, full = null;
            String field;
            while ((field = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                switch (field) {
                    case "Pod" -> podJson = t == JsonToken.START_OBJECT ? copy(p) : null;
                    case "NodeNameToMetaVictims" -> meta = nodes(p, t, field);
                    case "NodeNameToVictims" -> full = nodes(p, t, field);
                    default -> p.skipChildren();
                }
            }
            if (podJson == null) throw new WireException("the preempt request has no Pod");
            PodFacts facts;
            try (JsonParser pp = json.createParser(ObjectReadContext.empty(), podJson)) { pp.nextToken(); facts = reader.readPod(pp); }
            Map<String, Long> nodes = meta != null && !meta.isEmpty() ? meta : full != null ? full : Map.of();
            return new Args(facts, priority(podJson), nodes);
        } catch (JacksonException e) {
            throw new WireException("the preempt request is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private String copy(JsonParser p) {
        StringWriter sw = new StringWriter(2048);
        try (JsonGenerator g = json.createGenerator(ObjectWriteContext.empty(), sw)) { g.copyCurrentStructure(p); }
        return sw.toString();
    }

    /** node name → NumPDBViolations of a NodeNameTo(Meta)Victims map; the pods themselves are not needed. */
    private static Map<String, Long> nodes(JsonParser p, JsonToken t, String what) throws WireException {
        if (t == JsonToken.VALUE_NULL) return null;
        if (t != JsonToken.START_OBJECT) throw new WireException(what + " must be an object of node name to victims");
        Map<String, Long> out = new LinkedHashMap<>();
        String node;
        while ((node = p.nextName()) != null) {
            JsonToken v = p.nextToken();
            long pdb = 0;
            if (v == JsonToken.START_OBJECT) {
                String f;
                while ((f = p.nextName()) != null) {
                    JsonToken x = p.nextToken();
                    if (f.equals("NumPDBViolations") && x == JsonToken.VALUE_NUMBER_INT) pdb = p.getLongValue();
                    else p.skipChildren();
                }
            } else p.skipChildren();
            out.put(node, pdb);
        }
        return out;
    }

    /** spec.priority of the pod's JSON; 0 when absent (Kubernetes' default without a default PriorityClass). */
    private int priority(String podJson) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), podJson)) {
            p.nextToken();
            String f;
            while ((f = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (!f.equals("spec") || t != JsonToken.START_OBJECT) { p.skipChildren(); continue; }
                while ((f = p.nextName()) != null) {
                    t = p.nextToken();
                    if (f.equals("priority") && t == JsonToken.VALUE_NUMBER_INT) {
                        long v = p.getLongValue();
                        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new WireException("Pod.spec.priority " + v + " is out of range");
                        return (int) v;
                    }
                    p.skipChildren();
                }
            }
            return 0;
        }
    }

    private void write(Map<String, MetaVictims> result, OutputStream out) {
        try (JsonGenerator g = json.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeName("NodeNameToMetaVictims");
            g.writeStartObject();
            for (var e : result.entrySet()) {
                g.writeName(e.getKey());
                g.writeStartObject();
                g.writeName("Pods");
                g.writeStartArray();
                for (String uid : e.getValue().uids()) { g.writeStartObject(); g.writeName("UID"); g.writeString(uid); g.writeEndObject(); }
                g.writeEndArray();
                g.writeName("NumPDBViolations");
                g.writeNumber(e.getValue().pdbViolations());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeEndObject();
        }
    }
}
