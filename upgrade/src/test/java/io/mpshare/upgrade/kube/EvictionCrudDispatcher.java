package io.mpshare.upgrade.kube;

import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD mock plus the Eviction API it does not emulate: {@code POST pods/{name}/eviction} deletes the pod
 * (201), or answers 429 as a PodDisruptionBudget would while the pod's name is in {@link #pdbBlocked}. Every request is
 * logged ("METHOD path"). Pod lists with the field selector {@code spec.nodeName} are filtered as the API server does so tests can assert what was never deleted.
 */
final class EvictionCrudDispatcher extends KubernetesCrudDispatcher {
    private static final Pattern EVICTION = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/?]+)/eviction(\\?.*)?$");

    private static final Pattern NODE_FIELD = Pattern.compile("[?&]fieldSelector=spec\\.nodeName(?:%3D|=)([^&]+)");

    final Set<String> pdbBlocked = ConcurrentHashMap.newKeySet();
    final List<String> log = new CopyOnWriteArrayList<>();

    @Override public MockResponse dispatch(RecordedRequest req) {
        log.add(req.getMethod() + " " + req.getPath());
        Matcher f = NODE_FIELD.matcher(req.getPath());
        if ("GET".equalsIgnoreCase(req.getMethod()) && f.find() && !req.getPath().contains("watch=true")) return podsOnNode(req.getPath(), f);
        Matcher m = EVICTION.matcher(req.getPath());
        if (!"POST".equalsIgnoreCase(req.getMethod()) || !m.matches()) return super.dispatch(req);
        synchronized (this) {
            String podPath = "/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2);
            if (pdbBlocked.contains(m.group(2)))
                return status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
            MockResponse del = handleDelete(podPath);
            if (del.code() / 100 != 2) return del;
            return new MockResponse().setResponseCode(201).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\",\"code\":201}");
        }
    }

    /** {@code GET .../pods?fieldSelector=spec.nodeName=N}: the CRUD mock matches no pod on that field; the API server does. */
    private MockResponse podsOnNode(String path, Matcher f) {
        String node = java.net.URLDecoder.decode(f.group(1), java.nio.charset.StandardCharsets.UTF_8);
        String bare = path.substring(0, f.start()) + (path.charAt(f.start()) == '?' && f.end() < path.length() ? "?" + path.substring(f.end() + 1) : path.substring(f.end()));
        MockResponse all = handleGet(bare);
        if (all.code() != 200) return all;
        PodList list = Serialization.unmarshal(all.getBody().readUtf8(), PodList.class);
        list.setItems(list.getItems().stream().filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName())).toList());
        return new MockResponse().setResponseCode(200).setBody(Serialization.asJson(list));
    }

    private static MockResponse status(int code, String reason, String message) {
        return new MockResponse().setResponseCode(code).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\""
                + message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}");
    }
}
