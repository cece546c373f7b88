package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD mock plus the Eviction API it does not emulate (as upgrade's EvictionCrudDispatcher):
 * {@code POST pods/{name}/eviction} deletes the pod (201), or answers 429 as a PodDisruptionBudget would while the
 * pod's name is in {@link #pdbBlocked}. Every request is logged ("METHOD path"), DELETE bodies kept.
 */
final class EvictionDispatcher extends KubernetesCrudDispatcher {
    private static final Pattern EVICTION = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/?]+)/eviction(\\?.*)?$");

    final Set<String> pdbBlocked = ConcurrentHashMap.newKeySet();
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> evictionBodies = new CopyOnWriteArrayList<>();
    final List<String> deleteBodies = new CopyOnWriteArrayList<>();

    @Override public MockResponse dispatch(RecordedRequest req) {
        log.add(req.getMethod() + " " + req.getPath());
        if ("DELETE".equalsIgnoreCase(req.getMethod())) deleteBodies.add(req.getUtf8Body());
        Matcher m = EVICTION.matcher(req.getPath());
        if (!"POST".equalsIgnoreCase(req.getMethod()) || !m.matches()) return super.dispatch(req);
        evictionBodies.add(req.getBody().readUtf8());
        synchronized (this) {
            if (pdbBlocked.contains(m.group(2)))
                return new MockResponse().setResponseCode(429).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"message\":\"Cannot evict pod as it would violate the pod's disruption budget.\",\"reason\":\"TooManyRequests\",\"code\":429}");
            MockResponse del = handleDelete("/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2));
            if (del.code() / 100 != 2) return del;
            return new MockResponse().setResponseCode(201).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\",\"code\":201}");
        }
    }
}
