package io.mpshare.scheduler.http;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.FitIndex;
import io.mpshare.kube.PodFacts;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;

import java.io.InputStream;
import java.io.StringWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads kube-scheduler's request bodies with Jackson's streaming parser, keeping only what the extender
 * needs: the pod's name, namespace, UID, {@code aliyun.com/gpu-count} label, runAsUser, and each (init)
 * container's {@code aliyun.com/gpu-mem} and {@code aliyun.com/gpu-core.percentage}; everything else is
 * skipped without building objects, so a filter with 5,000 node names costs one pass over the bytes.
 *
 * <p>Thread-safe: the factory is shared, parsers are per call.
 */
public final class WireReader {
    /** Buffers recycled per thread: the HTTP workers are a fixed pool of platform threads. */
    private final JsonFactory json = JsonFactory.builder().recyclerPool(JsonRecyclerPools.threadLocalPool()).build();

    public ExtenderArgs extenderArgs(InputStream in) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), in)) {
            return extenderArgs(p);
        } catch (JacksonException e) {
            throw new WireException("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * Per thread, the position arrays of the last {@link RawNames} (off, len, hash): a filter of 5,000 names would
     * otherwise allocate 65 KB of them per request (the HTTP workers are a small fixed pool).
     */
    private final ThreadLocal<int[][]> nameArrays = ThreadLocal.withInitial(() -> new int[3][0]);

    /**
     * The same from a body held in {@code body[0, length)}: {@code NodeNames} are then kept as positions in
     * the body ({@link ExtenderArgs#rawNames}), no String built, unless one of them holds an escape. Those
     * positions live in arrays this thread reuses for its next call, as the caller reuses the body: the
     * answer is good until then.
     */
    public ExtenderArgs extenderArgs(byte[] body, int length) throws WireException {
        JsonParser p = json.createParser(ObjectReadContext.empty(), body, 0, length);
        try {
            expectObject(p, p.nextToken(), "the request body");
            PodFacts pod = null;
            List<String> names = null;
            RawNames rawNames = null;
            Map<String, String> raw = null;
            boolean podSeen = false;
            boolean[] prefers = new boolean[1];
            byte[] bytes = body;
            String field;
            fields:
            while ((field = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                switch (field) {
                    case "Pod" -> { podSeen = true; pod = t == JsonToken.VALUE_NULL ? null : readPod(p, prefers); }
                    case "NodeNames" -> {
                        names = null; rawNames = null;
                        if (t == JsonToken.VALUE_NULL) continue;
                        int[] end = new int[1];
                        if (bytes != null && t == JsonToken.START_ARRAY
                                && (rawNames = scanNames(bytes, (int) p.currentTokenLocation().getByteOffset(), length, end, nameArrays.get())) != null) {
                            names = rawNames.asList();
                            // the names are read: go on after the array without the parser reading them again
                            int k = skipWhitespace(bytes, end[0], length);
                            if (k < length && bytes[k] == '}') break fields; // kube-scheduler sends NodeNames last
                            if (k >= length || bytes[k] != ',') throw new WireException("the request body is not valid JSON: expected , or } after NodeNames");
                            byte[] rest = new byte[length - k];
                            rest[0] = '{';
                            System.arraycopy(bytes, k + 1, rest, 1, length - k - 1);
                            p.close();
                            p = json.createParser(ObjectReadContext.empty(), rest);
                            p.nextToken();
                            bytes = null;
                            length = rest.length;
                            continue;
                        }
                        names = stringArray(p, "NodeNames");
                    }
                    case "Nodes" -> raw = t == JsonToken.VALUE_NULL ? null : nodeList(p);
                    default -> p.skipChildren();
                }
            }
            return args(podSeen, pod, names, raw, rawNames, prefers[0]);
        } catch (JacksonException e) {
            throw new WireException("the request body is not valid JSON: " + e.getOriginalMessage());
        } finally {
            p.close();
        }
    }

    private ExtenderArgs extenderArgs(JsonParser p) throws WireException {
        expectObject(p, p.nextToken(), "the request body");
        PodFacts pod = null;
        List<String> names = null;
        Map<String, String> raw = null;
        boolean podSeen = false;
        boolean[] prefers = new boolean[1];
        String field;
        while ((field = p.nextName()) != null) {
            JsonToken t = p.nextToken();
            switch (field) {
                case "Pod" -> { podSeen = true; pod = t == JsonToken.VALUE_NULL ? null : readPod(p, prefers); }
                case "NodeNames" -> names = t == JsonToken.VALUE_NULL ? null : stringArray(p, "NodeNames");
                case "Nodes" -> raw = t == JsonToken.VALUE_NULL ? null : nodeList(p);
                default -> p.skipChildren();
            }
        }
        return args(podSeen, pod, names, raw, null, prefers[0]);
    }

    private static ExtenderArgs args(boolean podSeen, PodFacts pod, List<String> names, Map<String, String> raw, RawNames rawNames, boolean prefers)
            throws WireException {
        if (!podSeen || pod == null) throw new WireException("the request has no Pod: kube-scheduler sends ExtenderArgs {\"Pod\": ..., \"NodeNames\": [...]}");
        if (names == null && raw == null)
            throw new WireException("the request has neither NodeNames nor Nodes: send one (NodeNames with nodeCacheCapable: true)");
        if (names == null) names = List.copyOf(raw.keySet());
        else { raw = null; } // NodeNames wins when both are sent
        return new ExtenderArgs(pod, names, raw, raw == null ? rawNames : null, prefers);
    }

    private static int skipWhitespace(byte[] b, int i, int length) {
        while (i < length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
        return i;
    }

    private static final VarHandle LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L, HIGHS = 0x8080808080808080L;

    /** 0x80 in the lowest byte of {@code w} that is zero (higher flags may be false): the classic SWAR test. */
    private static long zeroBytes(long w) { return (w - ONES) & ~w & HIGHS; }

    /**
     * NodeNames as positions in {@code body}, scanned strictly ({@code [ "name" , ... ]}) from the array's
     * start, each name's {@code FitIndex.hash} computed on the way (8 bytes a step); {@code end[0]} is set past
     * its {@code ]}. Returns null when a name holds an escape or a control character, or the array is not a
     * plain array of strings: the caller then reads it with the parser, which still stands on the array's
     * start (and reports any error).
     */
    static RawNames scanNames(byte[] body, int start, int length, int[] end) { return scanNames(body, start, length, end, new int[3][0]); }

    /** Names whose position arrays a thread keeps between requests at most (kube-scheduler sends one name per node). */
    private static final int KEEP_NAMES = 1 << 16;

    /** {@link #scanNames(byte[], int, int, int[])} into {@code arrays} (off, len, hash; replaced there when they grow). */
    static RawNames scanNames(byte[] body, int start, int length, int[] end, int[][] arrays) {
        if (start < 0 || start >= length || body[start] != '[') return null;
        int cap = Math.max(16, (length - start) / 16); // a name takes at least 3 bytes; most take 15-30: rarely grown
        if (cap > KEEP_NAMES) arrays = new int[3][0]; // an outsize request's arrays are not kept
        if (arrays[0].length < cap) { arrays[0] = new int[cap]; arrays[1] = new int[cap]; arrays[2] = new int[cap]; }
        int[] off = arrays[0], len = arrays[1], hash = arrays[2];
        int n = 0, i = skipWhitespace(body, start + 1, length);
        if (i < length && body[i] == ']') { end[0] = i + 1; return new RawNames(body, off, len, hash, 0); }
        while (true) {
            if (i >= length || body[i] != '"') return null;
            int from = ++i;
            long h = 0, tail;
            while (true) {
                if (i + 8 <= length) {
                    long w = (long) LE.get(body, i);
                    // quotes, backslashes and control characters: the lowest flag of each test is exact, so the
                    // lowest of all is the first such byte; it must be the closing quote
                    long special = zeroBytes(w ^ 0x2222222222222222L) | zeroBytes(w ^ 0x5C5C5C5C5C5C5C5CL) | ((w - 0x2020202020202020L) & ~w & HIGHS);
                    if (special == 0) { h = FitIndex.hashStep(h, w); i += 8; continue; }
                    int q = Long.numberOfTrailingZeros(special) >>> 3;
                    if (body[i + q] != '"') return null; // an escape or a control character before the quote
                    tail = w & ((1L << (q * 8)) - 1);
                    i += q;
                    break;
                }
                // the last few bytes of the body: one at a time
                tail = 0;
                int shift = 0;
                while (i < length && body[i] != '"') {
                    byte c = body[i];
                    if (c == '\\' || (c >= 0 && c < 0x20) || shift == 64) return null;
                    tail |= (c & 0xFFL) << shift;
                    shift += 8;
                    i++;
                }
                if (i >= length) return null;
                break;
            }
            if (n == off.length) {
                off = arrays[0] = Arrays.copyOf(off, n * 2); len = arrays[1] = Arrays.copyOf(len, n * 2); hash = arrays[2] = Arrays.copyOf(hash, n * 2);
            }
            off[n] = from; len[n] = i - from; hash[n] = FitIndex.hashEnd(h, tail, i - from); n++;
            if (i + 2 < length && body[i + 1] == ',' && body[i + 2] == '"') { i += 2; continue; } // "a","b": the common case
            i = skipWhitespace(body, i + 1, length);
            if (i >= length) return null;
            if (body[i] == ']') { end[0] = i + 1; return new RawNames(body, off, len, hash, n); }
            if (body[i] != ',') return null;
            i = skipWhitespace(body, i + 1, length);
        }
    }

    public BindingArgs bindingArgs(InputStream in) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), in)) {
            expectObject(p, p.nextToken(), "the request body");
            String name = null, ns = null, uid = null, node = null;
            String field;
            while ((field = p.nextName()) != null) {
                p.nextToken();
                switch (field) {
                    case "PodName" -> name = string(p, "PodName");
                    case "PodNamespace" -> ns = string(p, "PodNamespace");
                    case "PodUID" -> uid = string(p, "PodUID");
                    case "Node" -> node = string(p, "Node");
                    default -> p.skipChildren();
                }
            }
            if (name == null || name.isBlank()) throw new WireException("the bind request has no PodName");
            if (node == null || node.isBlank()) throw new WireException("the bind request for pod " + name + " has no Node");
            return new BindingArgs(name, ns == null || ns.isBlank() ? "default" : ns, uid == null ? "" : uid, node);
        } catch (JacksonException e) {
            throw new WireException("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /** Reads a v1.Pod object; the parser stands on its START_OBJECT. Public for the protocol tests. */
    public PodFacts readPod(JsonParser p) throws WireException { return readPod(p, new boolean[1]); }

    /** {@link #readPod(JsonParser)}, setting {@code prefers[0]} when the pod states a scored preference ({@link ExtenderArgs#prefers}). */
    private PodFacts readPod(JsonParser p, boolean[] prefers) throws WireException {
        expectObject(p, p.currentToken(), "Pod");
        String name = null, ns = null, uid = null, gpuCount = null, reserve = null;
        Long runAsUser = null;
        List<PodFacts.Container> app = new ArrayList<>(), init = new ArrayList<>();
        String field;
        while ((field = p.nextName()) != null) {
            JsonToken t = p.nextToken();
            if (field.equals("metadata") && t == JsonToken.START_OBJECT) {
                while ((field = p.nextName()) != null) {
                    t = p.nextToken();
                    switch (field) {
                        case "name" -> name = string(p, "Pod.metadata.name");
                        case "namespace" -> ns = string(p, "Pod.metadata.namespace");
                        case "uid" -> uid = string(p, "Pod.metadata.uid");
                        case "labels" -> gpuCount = stringIn(p, t, Names.LABEL_GPU_COUNT, "Pod.metadata.labels");
                        case "annotations" -> reserve = stringIn(p, t, Names.ANN_CONTEXT_RESERVE, "Pod.metadata.annotations");
                        default -> p.skipChildren();
                    }
                }
            } else if (field.equals("spec") && t == JsonToken.START_OBJECT) {
                while ((field = p.nextName()) != null) {
                    t = p.nextToken();
                    switch (field) {
                        case "containers" -> containers(p, t, false, app);
                        case "initContainers" -> containers(p, t, true, init);
                        case "securityContext" -> runAsUser = runAsUser(p, t);
                        case "affinity" -> prefers[0] |= preferredTerms(p, t);
                        case "topologySpreadConstraints" -> prefers[0] |= scheduleAnyway(p, t);
                        default -> p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        app.addAll(init); // app containers first, as the allocation annotation lists them
        return new PodFacts(ns, name, uid, gpuCount, runAsUser, app, reserve);
    }

    /**
     * Whether {@code spec.affinity} (the parser on its value) holds a non-empty
     * {@code preferredDuringSchedulingIgnoredDuringExecution} list under any of its node, pod or anti-affinity parts.
     */
    private static boolean preferredTerms(JsonParser p, JsonToken t) {
        if (t != JsonToken.START_OBJECT) { p.skipChildren(); return false; }
        boolean found = false;
        String part;
        while ((part = p.nextName()) != null) {
            t = p.nextToken();
            if (t != JsonToken.START_OBJECT) { p.skipChildren(); continue; }
            String field;
            while ((field = p.nextName()) != null) {
                t = p.nextToken();
                if (field.equals("preferredDuringSchedulingIgnoredDuringExecution") && t == JsonToken.START_ARRAY) {
                    if (p.nextToken() != JsonToken.END_ARRAY) { found = true; p.skipChildren(); while (p.nextToken() != JsonToken.END_ARRAY) p.skipChildren(); }
                } else p.skipChildren();
            }
        }
        return found;
    }

    /** Whether {@code spec.topologySpreadConstraints} (the parser on its value) has one with {@code whenUnsatisfiable: ScheduleAnyway}. */
    private static boolean scheduleAnyway(JsonParser p, JsonToken t) {
        if (t != JsonToken.START_ARRAY) { p.skipChildren(); return false; }
        boolean found = false;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) { p.skipChildren(); continue; }
            String field;
            while ((field = p.nextName()) != null) {
                t = p.nextToken();
                if (field.equals("whenUnsatisfiable") && t == JsonToken.VALUE_STRING) found |= "ScheduleAnyway".equals(p.getString());
                else p.skipChildren();
            }
        }
        return found;
    }

    private void containers(JsonParser p, JsonToken t, boolean isInit, List<PodFacts.Container> out) throws WireException {
        if (t == JsonToken.VALUE_NULL) return;
        if (t != JsonToken.START_ARRAY) throw new WireException("Pod.spec." + (isInit ? "initContainers" : "containers") + " must be an array");
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expectObject(p, t, "a container");
            String name = null, mem = null, core = null, memReq = null, coreReq = null;
            Long uid = null;
            boolean always = false;
            String field;
            while ((field = p.nextName()) != null) {
                t = p.nextToken();
                switch (field) {
                    case "name" -> name = string(p, "container name");
                    case "securityContext" -> uid = runAsUser(p, t);
                    case "restartPolicy" -> always = t == JsonToken.VALUE_STRING && Names.RESTART_POLICY_ALWAYS.equals(p.getString());
                    case "resources" -> {
                        if (t != JsonToken.START_OBJECT) { p.skipChildren(); continue; }
                        while ((field = p.nextName()) != null) {
                            t = p.nextToken();
                            if (field.equals("limits") || field.equals("requests")) {
                                String[] two = resources(p, t, name);
                                if (field.equals("limits")) { mem = two[0]; core = two[1]; }
                                else { memReq = two[0]; coreReq = two[1]; }
                            } else p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            out.add(new PodFacts.Container(name == null ? "" : name, isInit, mem != null ? mem : memReq, core != null ? core : coreReq, uid,
                    isInit && always));
        }
    }

    /** [gpu-mem, gpu-core] of a limits/requests map, each null when absent. */
    private String[] resources(JsonParser p, JsonToken t, String container) throws WireException {
        String[] out = new String[2];
        if (t == JsonToken.VALUE_NULL) return out;
        expectObject(p, t, "resources of container " + container);
        String field;
        while ((field = p.nextName()) != null) {
            t = p.nextToken();
            if (field.equals(Names.RESOURCE_GPU_MEM)) out[0] = quantity(p, t, field, container);
            else if (field.equals(Names.RESOURCE_GPU_CORE)) out[1] = quantity(p, t, field, container);
            else p.skipChildren();
        }
        return out;
    }

    private static String quantity(JsonParser p, JsonToken t, String resource, String container) throws WireException {
        if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) return p.getString();
        p.skipChildren();
        throw new WireException("container " + container + ": " + resource + " must be a quantity such as \"7\"");
    }

    private static Long runAsUser(JsonParser p, JsonToken t) throws WireException {
        if (t != JsonToken.START_OBJECT) { p.skipChildren(); return null; }
        Long uid = null;
        String field;
        while ((field = p.nextName()) != null) {
            t = p.nextToken();
            if (field.equals("runAsUser") && t == JsonToken.VALUE_NUMBER_INT) {
                try { uid = p.getLongValue(); }
                catch (JacksonException e) { throw new WireException("securityContext.runAsUser is out of range"); }
            } else p.skipChildren();
        }
        return uid;
    }

    private static String stringIn(JsonParser p, JsonToken t, String key, String what) throws WireException {
        if (t == JsonToken.VALUE_NULL) return null;
        expectObject(p, t, what);
        String value = null, field;
        while ((field = p.nextName()) != null) {
            p.nextToken();
            if (field.equals(key)) value = string(p, what + "." + key);
            else p.skipChildren();
        }
        return value;
    }

    private static List<String> stringArray(JsonParser p, String what) throws WireException {
        if (p.currentToken() != JsonToken.START_ARRAY) throw new WireException(what + " must be an array of node names");
        List<String> out = new ArrayList<>(1024);
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) throw new WireException(what + " must hold only strings, found " + t.asString());
            out.add(p.getString());
        }
        return out;
    }

    /** A v1.NodeList (or a bare array of nodes): each node's JSON, by name, in order. */
    private Map<String, String> nodeList(JsonParser p) throws WireException {
        Map<String, String> out = new LinkedHashMap<>();
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            String field;
            while ((field = p.nextName()) != null) {
                t = p.nextToken();
                if (field.equals("items") && t == JsonToken.START_ARRAY) nodeItems(p, out);
                else p.skipChildren();
            }
        } else if (t == JsonToken.START_ARRAY) {
            nodeItems(p, out);
        } else throw new WireException("Nodes must be a v1.NodeList");
        return out;
    }

    private void nodeItems(JsonParser p, Map<String, String> out) throws WireException {
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expectObject(p, t, "a node of Nodes.items");
            StringWriter sw = new StringWriter(256);
            try (JsonGenerator g = json.createGenerator(ObjectWriteContext.empty(), sw)) { g.copyCurrentStructure(p); }
            String text = sw.toString();
            String name = nodeName(text);
            if (name == null) throw new WireException("a node of Nodes.items has no metadata.name");
            out.put(name, text);
        }
    }

    private String nodeName(String nodeJson) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), nodeJson)) {
            p.nextToken();
            String field;
            while ((field = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (field.equals("metadata") && t == JsonToken.START_OBJECT) {
                    String name = stringIn(p, t, "name", "Node.metadata");
                    if (name != null) return name;
                } else p.skipChildren();
            }
            return null;
        }
    }

    private static String string(JsonParser p, String what) throws WireException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) return null;
        if (t != JsonToken.VALUE_STRING) { p.skipChildren(); throw new WireException(what + " must be a string"); }
        return p.getString();
    }

    private static void expectObject(JsonParser p, JsonToken t, String what) throws WireException {
        if (t != JsonToken.START_OBJECT) throw new WireException(what + " must be a JSON object, found " + kind(t));
    }

    /** A token in words ("a number"), for messages: Jackson's own text is null for values. */
    static String kind(JsonToken t) {
        if (t == null) return "nothing";
        return switch (t) {
            case START_ARRAY, END_ARRAY -> "an array";
            case START_OBJECT, END_OBJECT -> "an object";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "true or false";
            case VALUE_NULL -> "null";
            default -> t.name().toLowerCase(Locale.ROOT);
        };
    }
}
