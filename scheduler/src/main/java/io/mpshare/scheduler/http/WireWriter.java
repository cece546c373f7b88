package io.mpshare.scheduler.http;

import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.scheduler.verbs.Verbs.FilterAnswer;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;

import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * Writes the extender's replies with kube-scheduler's Go field names: {@code ExtenderFilterResult},
 * {@code HostPriorityList} and {@code ExtenderBindingResult}. Every reason and Error passes {@link EventText#safe}
 * (kube-scheduler formats them into Events printf-style). Thread-safe.
 */
public final class WireWriter {
    private final JsonFactory json = JsonFactory.builder().recyclerPool(JsonRecyclerPools.threadLocalPool()).build();

    public JsonGenerator generator(OutputStream out) {
        return json.createGenerator(ObjectWriteContext.empty(), out);
    }

    /**
     * {@code ExtenderFilterResult}. With {@code rawNodes} (the request carried full Nodes) the kept nodes
     * are echoed in {@code Nodes.items}; otherwise their names go in {@code NodeNames}.
     */
    public void filterResult(OutputStream out, FilterAnswer a, Map<String, String> rawNodes) {
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            g.writeName("Nodes");
            if (rawNodes == null || !a.error().isEmpty()) g.writeNull();
            else {
                g.writeStartObject();
                g.writeName("metadata"); g.writeStartObject(); g.writeEndObject();
                g.writeName("items");
                g.writeStartArray();
                for (String n : a.fits()) g.writeRawValue(rawNodes.get(n));
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeName("NodeNames");
            if (rawNodes != null || !a.error().isEmpty()) g.writeNull();
            else {
                g.writeStartArray();
                for (String n : a.fits()) g.writeString(n);
                g.writeEndArray();
            }
            writeMap(g, "FailedNodes", a.failed());
            writeMap(g, "FailedAndUnresolvableNodes", a.unresolvable());
            g.writeStringProperty("Error", EventText.safe(a.error()));
            g.writeEndObject();
        }
    }

    private final FilterReply filterReply = new FilterReply();

    /**
     * {@code ExtenderFilterResult} for names read as bytes: the kept names are copied from the request body
     * (they hold no escapes, {@link RawNames}) into {@code NodeNames}, in runs ({@link FilterReply}).
     */
    public void filterResult(OutputStream out, Verbs.IndexedFilterAnswer a, RawNames names) { filterReply.write(out, a, names); }

    private static void writeMap(JsonGenerator g, String name, Map<String, String> m) {
        g.writeName(name);
        g.writeStartObject();
        for (var e : m.entrySet()) g.writeStringProperty(e.getKey(), EventText.safe(e.getValue()));
        g.writeEndObject();
    }

    /**
     * {@code HostPriorityList}. kube-scheduler's reply type has no error field, so an error yields an
     * empty list (every node scores 0 from us); the reason is logged and counted by the caller.
     */
    public void priorities(OutputStream out, List<NodeScore> scores) {
        try (JsonGenerator g = generator(out)) {
            g.writeStartArray();
            for (NodeScore s : scores) {
                g.writeStartObject();
                g.writeStringProperty("Host", s.node());
                g.writeNumberProperty("Score", (long) s.score());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }

    /** {@code ExtenderBindingResult}, or any reply that is only an error. */
    public void error(OutputStream out, String error) {
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            g.writeStringProperty("Error", EventText.safe(error));
            g.writeEndObject();
        }
    }
}
