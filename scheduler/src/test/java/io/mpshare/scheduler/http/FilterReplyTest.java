package io.mpshare.scheduler.http;

import io.mpshare.scheduler.verbs.Verbs;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FilterReply} (the hand-written filter reply over request bytes) against Jackson writing the same answer:
 * byte for byte when the request has no whitespace between names, token for token when it has; random names,
 * kept subsets (runs, gaps, none, all), reasons with every character class JSON escapes, {@code %}, non-ASCII, and
 * past {@link EventText#MAX}.
 */
class FilterReplyTest {
    private static final JsonFactory JSON = new JsonFactory();
    private static final String[] PIECES = {"gpu-node-", "a", "Z", "0", "é", "名", "😀", ".", "_", "-"};
    private static final String[] REASONS = {"no GPU with 8 GiB free (7 GiB asked + 1 GiB CUDA reserve): wait, or lower aliyun.com/gpu-mem",
            "100% cores", "a \"quoted\" \\ reason\twith\ncontrols\u0001\u001f", "ünïcødé 名 😀", "x".repeat(400), ""};

    /** What Jackson writes for the answer: the reference (the extender's writer before FilterReply). */
    private static byte[] jackson(Verbs.IndexedFilterAnswer a, List<String> names) {
        var out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeName("Nodes");
            g.writeNull();
            g.writeName("NodeNames");
            if (!a.error().isEmpty()) g.writeNull();
            else {
                g.writeStartArray();
                for (int k = 0; k < a.fitCount(); k++) g.writeString(names.get(a.fits()[k]));
                g.writeEndArray();
            }
            for (var m : List.of(Map.entry("FailedNodes", a.failed()), Map.entry("FailedAndUnresolvableNodes", a.unresolvable()))) {
                g.writeName(m.getKey());
                g.writeStartObject();
                for (var e : m.getValue().entrySet()) g.writeStringProperty(e.getKey(), EventText.safe(e.getValue()));
                g.writeEndObject();
            }
            g.writeStringProperty("Error", EventText.safe(a.error()));
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    private static List<String> tokens(byte[] json) {
        List<String> t = new ArrayList<>();
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), json)) {
            for (JsonToken k = p.nextToken(); k != null; k = p.nextToken()) t.add(k + ":" + (k.isScalarValue() || k == JsonToken.PROPERTY_NAME ? p.getString() : ""));
        }
        return t;
    }

    @Test
    void write_anyAnswer_sameAsJackson() {
        SplittableRandom r = new SplittableRandom(12);
        for (int c = 0; c < 400; c++) {
            int n = r.nextInt(c % 10 == 0 ? 1 : 60);
            List<String> names = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                StringBuilder sb = new StringBuilder();
                for (int k = 1 + r.nextInt(4); k > 0; k--) sb.append(PIECES[r.nextInt(PIECES.length)]);
                names.add(sb.toString() + i);
            }
            boolean spaces = r.nextBoolean();
            StringBuilder body = new StringBuilder("{\"NodeNames\":").append(spaces ? " [ " : "[");
            for (int i = 0; i < n; i++) body.append(i == 0 ? "" : spaces ? (r.nextBoolean() ? " ,\n\t" : ", ") : ",").append('"').append(names.get(i)).append('"');
            body.append(spaces ? " ]}" : "]}");
            byte[] b = body.toString().getBytes(StandardCharsets.UTF_8);
            int start = body.indexOf("[");
            RawNames raw = WireReader.scanNames(b, new String(b, StandardCharsets.UTF_8).indexOf('['), b.length, new int[1]);
            assertThat(raw).as("case %d scanned", c).isNotNull();
            assertThat(raw.count()).isEqualTo(n);

            int mode = r.nextInt(4); // 0 none kept, 1 all, 2-3 random
            int[] fits = new int[n];
            int m = 0;
            Map<String, String> failed = new LinkedHashMap<>(), unresolvable = new LinkedHashMap<>();
            String shared = REASONS[r.nextInt(REASONS.length)];
            for (int i = 0; i < n; i++) {
                boolean keep = mode == 1 || (mode >= 2 && r.nextInt(3) != 0);
                if (keep) fits[m++] = i;
                else if (r.nextBoolean()) failed.put(names.get(i), r.nextBoolean() ? shared : REASONS[r.nextInt(REASONS.length)]);
                else unresolvable.put(names.get(i), REASONS[r.nextInt(REASONS.length)]);
            }
            String error = r.nextInt(8) == 0 ? REASONS[r.nextInt(REASONS.length)] : "";
            var a = new Verbs.IndexedFilterAnswer(fits, m, failed, unresolvable, error);
            var out = new ByteArrayOutputStream();
            new FilterReply().write(out, a, raw);
            byte[] expected = jackson(a, names);
            if (!spaces) assertThat(new String(out.toByteArray(), StandardCharsets.UTF_8)).as("case %d (start %d)", c, start)
                    .isEqualTo(new String(expected, StandardCharsets.UTF_8));
            assertThat(tokens(out.toByteArray())).as("case %d tokens", c).isEqualTo(tokens(expected));
        }
    }

    @Test
    void write_everyNodeKept_copiesTheRequestArray() {
        byte[] b = "{\"NodeNames\":[\"n1\",\"n2\",\"n3\"]}".getBytes(StandardCharsets.UTF_8);
        RawNames raw = WireReader.scanNames(b, 13, b.length, new int[1]);
        var out = new ByteArrayOutputStream();
        new FilterReply().write(out, new Verbs.IndexedFilterAnswer(new int[]{0, 1, 2}, 3, Map.of(), Map.of(), ""), raw);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"Nodes\":null,\"NodeNames\":[\"n1\",\"n2\",\"n3\"],\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
        out.reset();
        new FilterReply().write(out, new Verbs.IndexedFilterAnswer(new int[]{0, 2}, 2, Map.of("n2", "no room, 100% used"), Map.of(), ""), raw);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"Nodes\":null,\"NodeNames\":[\"n1\",\"n3\"],\"FailedNodes\":{\"n2\":\"no room, 100 percent used\"},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    }
}
