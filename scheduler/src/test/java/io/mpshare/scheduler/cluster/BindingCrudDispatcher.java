package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD mock plus what it lacks (FACTS.md): {@code POST pods/{name}/binding} sets
 * {@code spec.nodeName} once and merges the Binding's annotations into the pod, and a second binding of the same
 * pod answers 409, as the API server does. The pod is written through the CRUD handler, so watchers (informers)
 * see it bound. Shared with e2e/it through this module's test-jar.
 */
public final class BindingCrudDispatcher extends KubernetesCrudDispatcher {
    private static final Pattern BINDING = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/?]+)/binding(\\?.*)?$");

    @Override public MockResponse dispatch(RecordedRequest req) {
        Matcher m = BINDING.matcher(req.getPath());
        if (!"POST".equalsIgnoreCase(req.getMethod()) || !m.matches()) return super.dispatch(req);
        synchronized (this) {
            String podPath = "/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2);
            MockResponse got = handleGet(podPath);
            if (got.code() != 200) return status(404, "NotFound", "pods \"" + m.group(2) + "\" not found");
            Pod pod = Serialization.unmarshal(got.getBody().readUtf8(), Pod.class);
            Binding b = Serialization.unmarshal(req.getUtf8Body(), Binding.class);
            String uid = b.getMetadata() == null ? null : b.getMetadata().getUid();
            if (uid != null && !uid.equals(pod.getMetadata().getUid()))
                return status(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + m.group(2) + "\": UID precondition failed");
            if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty())
                return status(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + m.group(2) + "\": pod " + m.group(2)
                        + " is already assigned to node \"" + pod.getSpec().getNodeName() + "\"");
            pod.getSpec().setNodeName(b.getTarget().getName());
            if (b.getMetadata() != null && b.getMetadata().getAnnotations() != null) {
                var ann = new java.util.LinkedHashMap<String, String>();
                if (pod.getMetadata().getAnnotations() != null) ann.putAll(pod.getMetadata().getAnnotations());
                ann.putAll(b.getMetadata().getAnnotations());
                pod.getMetadata().setAnnotations(ann);
            }
            // a PUT through the CRUD handler's request form, which also tells watchers (informers) the pod is bound
            var update = new RecordedRequest("HTTP/1.1", io.fabric8.mockwebserver.dsl.HttpMethod.PUT, podPath,
                    io.fabric8.mockwebserver.http.Headers.builder().add("Content-Type", "application/json").build(),
                    new io.fabric8.mockwebserver.http.Buffer(Serialization.asJson(pod).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            MockResponse put = handleUpdate(update);
            if (put.code() / 100 != 2) return put;
            return new MockResponse().setResponseCode(201).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\",\"code\":201}");
        }
    }

    private static MockResponse status(int code, String reason, String message) {
        return new MockResponse().setResponseCode(code).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
                + Serialization.asJson(message) + ",\"reason\":\"" + reason + "\",\"code\":" + code + "}");
    }
}
