package io.mpshare.admission.cluster;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.mpshare.core.Names;
import io.mpshare.core.validation.ClientUid;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The namespaces' {@link Names#ANN_CLIENT_UID} bindings, kept current by a namespace informer (this is its event
 * handler). Reads take no lock; updates are serialised so that the UID index always matches the per-namespace map.
 */
public final class NamespaceClientUids implements ResourceEventHandler<Namespace>, ClientUidLookup {
    private static final Logger LOG = Logger.getLogger(NamespaceClientUids.class.getName());
    private final Map<String, ClientUid> byNamespace = new ConcurrentHashMap<>();
    private final Map<Long, Set<String>> byUid = new ConcurrentHashMap<>();

    @Override public ClientUid of(String namespace) { return byNamespace.getOrDefault(namespace, ClientUid.UNBOUND); }

    @Override public Set<String> claimants(long uid) { return byUid.getOrDefault(uid, Set.of()); }

    @Override public boolean anyBound() { return !byUid.isEmpty(); }

    @Override public void onAdd(Namespace ns) { update(ns); }

    @Override public void onUpdate(Namespace old, Namespace ns) { update(ns); }

    @Override public void onDelete(Namespace ns, boolean unknownFinalState) { put(ns.getMetadata().getName(), ClientUid.UNBOUND); }

    void update(Namespace ns) {
        String name = ns.getMetadata().getName();
        Map<String, String> ann = ns.getMetadata().getAnnotations();
        ClientUid next = ClientUid.parse(ann == null ? null : ann.get(Names.ANN_CLIENT_UID));
        if (next instanceof ClientUid.Invalid(String text) && !next.equals(byNamespace.get(name)))
            LOG.warning("namespace " + name + " has " + Names.ANN_CLIENT_UID + "=\"" + text + "\", not a UID from 1 to " + ClientUid.MAX_UID
                    + ": its shared-GPU pods are refused until it is fixed");
        put(name, next);
    }

    private synchronized void put(String name, ClientUid next) {
        ClientUid prev = next instanceof ClientUid.Unbound ? byNamespace.remove(name) : byNamespace.put(name, next);
        if (prev instanceof ClientUid.Bound(long uid)) index(uid, name, false);
        if (next instanceof ClientUid.Bound(long uid)) {
            index(uid, name, true);
            if (claimants(uid).size() > 1)
                LOG.warning("UID " + uid + " is bound to several namespaces " + claimants(uid) + ": their pods can terminate each other's GPU clients");
        }
    }

    private void index(long uid, String name, boolean add) {
        Set<String> s = new HashSet<>(byUid.getOrDefault(uid, Set.of()));
        if (add) s.add(name); else s.remove(name);
        if (s.isEmpty()) byUid.remove(uid); else byUid.put(uid, Set.copyOf(s));
    }
}
