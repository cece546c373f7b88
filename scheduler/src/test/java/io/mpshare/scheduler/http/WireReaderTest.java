package io.mpshare.scheduler.http;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.ContainerRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireReaderTest {
    private final WireReader reader = new WireReader();

    static InputStream resource(String name) {
        return WireReaderTest.class.getResourceAsStream("/kube-scheduler/" + name);
    }

    static InputStream text(String s) { return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)); }

    @Test void extenderArgs_fullPodFromKubeScheduler_pullsOnlyWhatMatters() throws Exception {
        ExtenderArgs a = reader.extenderArgs(resource("filter-args.json"));
        assertThat(a.nodeNames()).containsExactly("gpu-a", "gpu-b", "gpu-full", "cpu-only", "gpu-small");
        assertThat(a.rawNodes()).isNull();
        var pod = a.pod();
        assertThat(pod.namespace()).isEqualTo("ml");
        assertThat(pod.name()).isEqualTo("mps-sample-0-x7k2p");
        assertThat(pod.uid()).isEqualTo("6f1c9a9e-2b0e-4d7a-9a57-1b2c3d4e5f60");
        assertThat(pod.gpuCountLabel()).isEqualTo("2");
        assertThat(pod.runAsUser()).isEqualTo(2000L);
        var info = pod.toPodInfo(MemoryUnit.GIB);
        assertThat(info.gpuCount()).isEqualTo(2);
        assertThat(info.runAsUser()).hasValue(1000L); // the GPU container's own runAsUser wins
        assertThat(info.containers()).containsExactly(
                ContainerRequest.app("train", 14 * 1024, 60), ContainerRequest.app("sidecar", 0, 0), ContainerRequest.init("warmup", 4 * 1024, 0));
    }

    @Test void extenderArgs_fullNodeList_namesAndRawJsonKept() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":{\"kind\":\"NodeList\",\"items\":["
                + "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"a\":\"b\"}},\"status\":{\"capacity\":{\"cpu\":\"8\"}}},"
                + "{\"metadata\":{\"name\":\"n2\"}}]},\"NodeNames\":null}";
        ExtenderArgs a = reader.extenderArgs(text(body));
        assertThat(a.nodeNames()).containsExactly("n1", "n2");
        assertThat(a.rawNodes()).containsKeys("n1", "n2");
        assertThat(a.rawNodes().get("n1")).contains("\"capacity\"");
    }

    /** Whether the pod states a preference kube-scheduler scores: read from the stream and from the bytes alike. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no affinity, no spread                     | {}                                                                                                 | false
            required node affinity only               | {"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{}]}}}} | false
            preferred node affinity                   | {"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{}}]}}} | true
            preferred pod anti-affinity, after others | {"affinity":{"podAffinity":{},"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[],"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5},{"weight":1}]}}} | true
            empty preferred list                      | {"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[]}}}              | false
            spread, DoNotSchedule                     | {"topologySpreadConstraints":[{"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}]}                 | false
            spread, ScheduleAnyway second             | {"topologySpreadConstraints":[{"whenUnsatisfiable":"DoNotSchedule"},{"maxSkew":2,"whenUnsatisfiable":"ScheduleAnyway"}]} | true
            affinity null, spread null                | {"affinity":null,"topologySpreadConstraints":null}                                                 | false
            """)
    void extenderArgs_scoredPreferences(String what, String specFields, boolean prefers) throws Exception {
        String spec = specFields.substring(0, specFields.length() - 1) + (specFields.length() > 2 ? "," : "")
                + "\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"2\"}}}]}";
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":" + spec + "},\"NodeNames\":[\"n1\",\"n2\"]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assertThat(reader.extenderArgs(text(body)).prefers()).as(what).isEqualTo(prefers);
        ExtenderArgs fromBytes = reader.extenderArgs(bytes, bytes.length);
        assertThat(fromBytes.prefers()).as(what).isEqualTo(prefers);
        assertThat(fromBytes.pod().containers()).hasSize(1); // the rest of the spec still read
    }

    @Test void bindingArgs_goFieldNames() throws Exception {
        BindingArgs b = reader.bindingArgs(resource("bind-args.json"));
        assertThat(b).isEqualTo(new BindingArgs("mps-sample-0-x7k2p", "ml", "6f1c9a9e-2b0e-4d7a-9a57-1b2c3d4e5f60", "gpu-a"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty body              |                                              | must be a JSON object, found nothing
            not json                | hello                                        | not valid JSON
            truncated               | {"Pod":{"metadata":{"name":"p"}},"NodeNa     | not valid JSON
            array at top            | []                                           | must be a JSON object, found an array
            pod is a number         | {"Pod": 5, "NodeNames":["n1"]}               | Pod must be a JSON object, found a number
            no pod                  | {"NodeNames":["n1"]}                         | has no Pod
            null pod                | {"Pod":null,"NodeNames":["n1"]}              | has no Pod
            no nodes                | {"Pod":{"metadata":{"name":"p"}}}            | neither NodeNames nor Nodes
            names not strings       | {"Pod":{"metadata":{"name":"p"}},"NodeNames":[1]} | only strings
            names not array         | {"Pod":{"metadata":{"name":"p"}},"NodeNames":"n1"} | must be an array
            quantity is object      | {"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":{}}}}]}},"NodeNames":[]} | must be a quantity
            name not string         | {"Pod":{"metadata":{"name":7}},"NodeNames":[]} | Pod.metadata.name must be a string
            """)
    void extenderArgs_badInput_saysWhat(String name, String body, String message) {
        assertThatThrownBy(() -> reader.extenderArgs(text(body == null ? "" : body)))
                .isInstanceOf(WireException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no pod name  | {"PodNamespace":"ns","Node":"n1"}  | no PodName
            no node      | {"PodName":"p"}                     | has no Node
            not json     | {"PodName":                         | not valid JSON
            """)
    void bindingArgs_badInput_saysWhat(String name, String body, String message) {
        assertThatThrownBy(() -> reader.bindingArgs(text(body))).isInstanceOf(WireException.class).hasMessageContaining(message);
    }

    @Test void extenderArgs_fiveThousandNames() throws IOException, WireException {
        StringBuilder sb = new StringBuilder("{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[");
        for (int i = 0; i < 5000; i++) sb.append(i == 0 ? "" : ",").append("\"node-").append(i).append('"');
        sb.append("]}");
        assertThat(reader.extenderArgs(text(sb.toString())).nodeNames()).hasSize(5000).endsWith("node-4999");
    }

    @Test void podFacts_absurdQuantities_clearErrors() throws Exception {
        for (var c : List.of(new String[]{"99999999999999999999", "whole numbers"}, new String[]{"9007199254740993", "far more than any GPU"},
                new String[]{"1.5", "whole numbers"}, new String[]{"-3", "must not be negative"}, new String[]{"7Gi", "whole numbers"})) {
            String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\""
                    + c[0] + "\"}}}]}},\"NodeNames\":[]}";
            var facts = reader.extenderArgs(text(body)).pod();
            assertThatThrownBy(() -> facts.toPodInfo(MemoryUnit.GIB)).as(c[0]).hasMessageContaining(c[1]).hasMessageContaining("container c");
        }
    }

    @Test void extenderArgs_fromBytes_keepsNamesAsPositions_sameNamesAsTheStream() throws Exception {
        String body = "{\"NodeNames\" : [ \"a\",\n\t\"nöde-2\" , \"\", \"gpu-node-00042\" ],\"Pod\":{\"metadata\":{\"name\":\"p\"}}}";
        byte[] b = (body + "trailing garbage past the length").getBytes(StandardCharsets.UTF_8);
        ExtenderArgs a = reader.extenderArgs(b, body.getBytes(StandardCharsets.UTF_8).length);
        assertThat(a.rawNames()).isNotNull();
        assertThat(a.rawNames().count()).isEqualTo(4);
        assertThat(a.nodeNames()).containsExactly("a", "nöde-2", "", "gpu-node-00042")
                .isEqualTo(reader.extenderArgs(text(body)).nodeNames());
    }

    @Test void extenderArgs_fromBytes_escapedName_fallsBackToStrings() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[\"a\",\"gpu-\\u0062\",\"q\\\"x\"]}";
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ExtenderArgs a = reader.extenderArgs(b, b.length);
        assertThat(a.rawNames()).isNull();
        assertThat(a.nodeNames()).containsExactly("a", "gpu-b", "q\"x");
    }

    @Test void extenderArgs_fromBytes_badArrays_sayWhat() {
        for (String names : List.of("[\"a\" \"b\"]", "[\"a\",]", "[1]", "[\"a\"", "{}")) {
            byte[] b = ("{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":" + names + "}").getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> reader.extenderArgs(b, b.length)).as(names).isInstanceOf(WireException.class);
        }
    }

    /** The name positions live in arrays the thread reuses: each call's answer holds its own names, growing or shrinking. */
    @Test void extenderArgs_successiveCallsOnOneThread_eachHasItsOwnNames() throws Exception {
        for (int count : new int[]{3, 700, 2, 0, 1500, 5}) {
            List<String> names = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) names.add("n" + count + "-" + i);
            StringBuilder sb = new StringBuilder("{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[");
            for (int i = 0; i < count; i++) sb.append(i == 0 ? "\"" : ",\"").append(names.get(i)).append('"');
            byte[] b = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
            ExtenderArgs a = reader.extenderArgs(b, b.length);
            assertThat(a.rawNames().count()).isEqualTo(count);
            assertThat(a.rawNames().asList()).as("%d names", count).isEqualTo(names);
            for (int i = 0; i < count; i++)
                assertThat(a.rawNames().hash()[i]).isEqualTo(io.mpshare.core.ledger.FitIndex.hash(b, a.rawNames().off()[i], a.rawNames().len()[i]));
        }
    }

    @Test void scanNames_hashesAgreeWithTheIndex_anyLength_anyPlaceInTheBody() {
        var rnd = new java.util.SplittableRandom(7);
        for (int trial = 0; trial < 2000; trial++) {
            int count = rnd.nextInt(0, 6);
            List<String> names = new java.util.ArrayList<>();
            StringBuilder sb = new StringBuilder("[");
            for (int k = 0; k < count; k++) {
                StringBuilder name = new StringBuilder();
                int n = rnd.nextInt(0, 30);
                for (int c = 0; c < n; c++) name.append(rnd.nextInt(10) == 0 ? '\u00e9' : (char) ('a' + rnd.nextInt(26)));
                names.add(name.toString());
                sb.append(k == 0 ? "" : rnd.nextBoolean() ? "," : " ,\n ").append('"').append(name).append('"');
            }
            sb.append(rnd.nextBoolean() ? "]" : " ]");
            byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8); // the array ends the buffer: the byte-wise tail path too
            int[] end = new int[1];
            RawNames r = WireReader.scanNames(b, 0, b.length, end);
            assertThat(r).as(sb.toString()).isNotNull();
            assertThat(end[0]).isEqualTo(b.length);
            assertThat(r.asList()).isEqualTo(names);
            for (int k = 0; k < count; k++)
                assertThat(r.hash()[k]).as("%s", names.get(k)).isEqualTo(io.mpshare.core.ledger.FitIndex.hash(b, r.off()[k], r.len()[k]));
        }
        byte[] escaped = "[\"abcdefghij\\u0041\"]".getBytes(StandardCharsets.UTF_8), control = "[\"abcdefghijk\tl\"]".getBytes(StandardCharsets.UTF_8);
        assertThat(WireReader.scanNames(escaped, 0, escaped.length, new int[1])).isNull();
        assertThat(WireReader.scanNames(control, 0, control.length, new int[1])).isNull();
    }
}
