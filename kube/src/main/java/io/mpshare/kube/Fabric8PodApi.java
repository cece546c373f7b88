package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

import java.io.StringWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link PodApi} over a fabric8 client. The Binding, with the allocation annotations in its metadata, is POSTed
 * to the pod's {@code binding} subresource through the client's HTTP client, so it uses the same credentials.
 */
public final class Fabric8PodApi implements PodApi {
    private static final JsonFactory JSON = new JsonFactory();
    private final KubernetesClient client;
    private final Duration timeout;

    public Fabric8PodApi(KubernetesClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    @Override public KubePod get(PodKey pod) throws Failure {
        try {
            Pod p = client.pods().inNamespace(pod.namespace()).withName(pod.name()).get();
            return p == null ? null : KubePod.of(p);
        } catch (KubernetesClientException e) {
            throw failure("read pod " + pod, e);
        }
    }

    @Override public void bind(PodKey pod, String uid, String node, Map<String, String> annotations) throws Failure {
        String body = binding(pod, uid, node, annotations);
        String base = client.getMasterUrl().toString();
        if (base.endsWith("/")) base = base.substring(0, base.length() - 1);
        URI uri = URI.create(base + "/api/v1/namespaces/" + enc(pod.namespace()) + "/pods/" + enc(pod.name()) + "/binding");
        HttpClient http = client.getHttpClient();
        HttpRequest req = http.newHttpRequestBuilder().uri(uri).post("application/json", body).build();
        HttpResponse<String> resp;
        try {
            resp = http.sendAsync(req, String.class).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(0, "bind pod " + pod + " to node " + node + ": interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new Failure(0, "bind pod " + pod + " to node " + node + ": " + e, e);
        }
        if (resp.code() / 100 != 2)
            throw new Failure(resp.code(), "bind pod " + pod + " to node " + node + ": API server answered " + resp.code() + " " + abbreviate(resp.body()));
    }

    /**
     * Writes {@code requeue.mpshare.io/at: note} on a pending pod (a JSON merge patch carrying the pod's UID, so another pod
     * of that name is not touched: its UID cannot change). Any update of a pending pod makes kube-scheduler retry it;
     * the extender wakes the pods it refused this way once room for them appears.
     */
    public void requeue(PodKey pod, String uid, String note) throws Failure {
        StringWriter sw = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), sw)) {
            g.writeStartObject();
            g.writeName("metadata");
            g.writeStartObject();
            if (!uid.isEmpty()) g.writeStringProperty("uid", uid);
            g.writeName("annotations");
            g.writeStartObject();
            g.writeStringProperty(Names.ANN_REQUEUE, note);
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
        }
        try {
            client.pods().inNamespace(pod.namespace()).withName(pod.name()).patch(PatchContext.of(PatchType.JSON_MERGE), sw.toString());
        } catch (KubernetesClientException e) {
            throw failure("requeue pod " + pod, e);
        }
    }

    /** The Binding: the pod's name, namespace and UID (a precondition), the node, and the annotations to merge into the pod. */
    static String binding(PodKey pod, String uid, String node, Map<String, String> annotations) {
        StringWriter sw = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), sw)) {
            g.writeStartObject();
            g.writeStringProperty("apiVersion", "v1");
            g.writeStringProperty("kind", "Binding");
            g.writeName("metadata");
            g.writeStartObject();
            g.writeStringProperty("name", pod.name());
            g.writeStringProperty("namespace", pod.namespace());
            if (!uid.isEmpty()) g.writeStringProperty("uid", uid);
            if (!annotations.isEmpty()) {
                g.writeName("annotations");
                g.writeStartObject();
                for (var e : annotations.entrySet()) g.writeStringProperty(e.getKey(), e.getValue());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeName("target");
            g.writeStartObject();
            g.writeStringProperty("apiVersion", "v1");
            g.writeStringProperty("kind", "Node");
            g.writeStringProperty("name", node);
            g.writeEndObject();
            g.writeEndObject();
        }
        return sw.toString();
    }

    private static Failure failure(String what, KubernetesClientException e) {
        return new Failure(e.getCode(), what + ": " + (e.getCode() == 0 ? e.getMessage() : "API server answered " + e.getCode() + " " + abbreviate(e.getMessage())), e);
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8); }
}
