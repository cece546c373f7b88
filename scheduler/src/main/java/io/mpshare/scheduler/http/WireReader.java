package io.mpshare.scheduler.http;

import io.mpshare.core.Names;
import io.mpshare.scheduler.PodFacts;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
            return extenderArgs(p, null);
        } catch (JacksonException e) {
            throw new WireException("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * The same from a body held in {@code body[0, length)}: {@code NodeNames} are then kept as positions in
     * the body ({@link ExtenderArgs#rawNames}), no String built, unless one of them holds an escape.
     */
    public ExtenderArgs extenderArgs(byte[] body, int length) throws WireException {
        try (JsonParser p = json.createParser(ObjectReadContext.empty(), body, 0, length)) {
            return extenderArgs(p, body);
        } catch (JacksonException e) {
            throw new WireException("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private ExtenderArgs extenderArgs(JsonParser p, byte[] body) throws WireException {
        expectObject(p, p.nextToken(), "the request body");
        PodFacts pod = null;
        List<String> names = null;
        RawNames rawNames = null;
        Map<String, String> raw = null;
        boolean podSeen = false;
        String field;
        while ((field = p.nextName()) != null) {
            JsonToken t = p.nextToken();
            switch (field) {
                case "Pod" -> { podSeen = true; pod = t == JsonToken.VALUE_NULL ? null : readPod(p); }
                case "NodeNames" -> {
                    names = null; rawNames = null;
                    if (t == JsonToken.VALUE_NULL) continue;
                    if (body != null) {
                        rawNames = rawArray(p, body);
                        if (rawNames != null) { names = rawNames.asList(); continue; }
                    }
                    names = stringArray(p, "NodeNames");
                }
                case "Nodes" -> raw = t == JsonToken.VALUE_NULL ? null : nodeList(p);
                default -> p.skipChildren();
            }
        }
        if (!podSeen || pod == null) throw new WireException("the request has no Pod: kube-scheduler sends ExtenderArgs {\"Pod\": ..., \"NodeNames\": [...]}");
        if (names == null && raw == null)
            throw new WireException("the request has neither NodeNames nor Nodes: send one (NodeNames with nodeCacheCapable: true)");
        if (names == null) names = List.copyOf(raw.keySet());
        else raw = null; // NodeNames wins when both are sent
        return new ExtenderArgs(pod, names, raw, rawNames);
    }

    /**
     * NodeNames as positions in {@code body}; the parser stands on the array's start and ends on its end.
     * Returns null, with the parser still on the array's start, when a name holds an escape or a control
     * character (then the caller reads them as strings): the parser never decodes the names it skips.
     */
    private static RawNames rawArray(JsonParser p, byte[] body) throws WireException {
        if (p.currentToken() != JsonToken.START_ARRAY) throw new WireException("NodeNames must be an array of node names");
        long start = p.currentTokenLocation().getByteOffset();
        if (start < 0 || start >= body.length || body[(int) start] != '[') return null;
        // scan the array ourselves first: only when every name is plain do we let Jackson skip it
        int[] off = new int[256], len = new int[256];
        int n = 0, i = (int) start + 1;
        while (true) {
            while (i < body.length && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t' || body[i] == ',')) i++;
            if (i >= body.length) return null;
            if (body[i] == ']') break;
            if (body[i] != '"') return null; // not a string: let the string reader say what is wrong
            int from = ++i;
            while (i < body.length && body[i] != '"') {
                if (body[i] == '\\' || (body[i] >= 0 && body[i] < 0x20)) return null;
                i++;
            }
            if (i >= body.length) return null;
            if (n == off.length) { off = java.util.Arrays.copyOf(off, n * 2); len = java.util.Arrays.copyOf(len, n * 2); }
            off[n] = from; len[n] = i - from; n++;
            i++;
        }
        p.skipChildren(); // Jackson checks the syntax (commas) as it skips
        return new RawNames(body, off, len, n);
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
    public PodFacts readPod(JsonParser p) throws WireException {
        expectObject(p, p.currentToken(), "Pod");
        String name = null, ns = null, uid = null, gpuCount = null;
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
                        default -> p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        app.addAll(init); // app containers first, as the allocation annotation lists them
        return new PodFacts(ns, name, uid, gpuCount, runAsUser, app);
    }

    private void containers(JsonParser p, JsonToken t, boolean isInit, List<PodFacts.Container> out) throws WireException {
        if (t == JsonToken.VALUE_NULL) return;
        if (t != JsonToken.START_ARRAY) throw new WireException("Pod.spec." + (isInit ? "initContainers" : "containers") + " must be an array");
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expectObject(p, t, "a container");
            String name = null, mem = null, core = null, memReq = null, coreReq = null;
            Long uid = null;
            String field;
            while ((field = p.nextName()) != null) {
                t = p.nextToken();
                switch (field) {
                    case "name" -> name = string(p, "container name");
                    case "securityContext" -> uid = runAsUser(p, t);
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
            out.add(new PodFacts.Container(name == null ? "" : name, isInit, mem != null ? mem : memReq, core != null ? core : coreReq, uid));
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
        if (t != JsonToken.START_OBJECT) throw new WireException(what + " must be a JSON object" + (t == null ? ", found nothing" : ", found " + t.asString()));
    }
}
