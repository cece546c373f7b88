package io.mpshare.scheduler.http;

import io.mpshare.kube.PodFacts;
import io.mpshare.scheduler.preempt.PreemptVerb.MetaVictims;
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
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * kube-scheduler's {@code preemptVerb} on the wire: {@code ExtenderPreemptionArgs {Pod, NodeNameToVictims,
 * NodeNameToMetaVictims}} in, {@code ExtenderPreemptionResult {NodeNameToMetaVictims}} out (Go field names as keys;
 * {@code MetaVictims {Pods: [{UID}], NumPDBViolations}}). The decision is {@code PreemptVerb}'s.
 */
final class PreemptWire {
    private final JsonFactory json = JsonFactory.builder().build();
    private final WireReader reader;

    PreemptWire(WireReader reader) { this.reader = reader; }

    /** The request as read: the preemptor, its priority, and the candidate nodes with kube-scheduler's PDB counts. */
    record Args(PodFacts pod, int priority, Map<String, Long> nodes) {}

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

    void write(Map<String, MetaVictims> result, OutputStream out) {
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
