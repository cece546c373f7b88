package io.mpshare.deviceplugin.domains;

import io.mpshare.core.codec.DomainsCodec;
import io.mpshare.core.codec.DomainsCodec.NodeDomains;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainPlan.Key;
import io.mpshare.deviceplugin.domains.DomainPlan.Member;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node's domains at one round: what the bookings ask ({@code plan}), what each colour's supervisor reported
 * ({@code reports}, colour → id), the pods on the node daemon per GPU, and the fault suspects. {@link #annotation} is
 * what the Node carries for {@code mpshare inspect}.
 */
public record DomainsView(String node, NodeInventory hardware, Map<Key, Desired> plan, Map<String, Map<String, DomainReport>> reports,
                          Map<Integer, List<Member>> onNodeDaemon, Map<String, Instant> suspects) {
    public DomainsView {
        plan = Map.copyOf(plan);
        reports = Map.copyOf(reports);
        onNodeDaemon = Map.copyOf(onNodeDaemon);
        suspects = Map.copyOf(suspects);
    }

    /** The domain's report on its colour, or null. */
    public DomainReport report(Key k) {
        Map<String, DomainReport> m = reports.get(k.colour());
        return m == null ? null : m.get(k.id());
    }

    /**
     * Every domain with pods here, per GPU, in GPU order, with its state; then domains the supervisors still run that no
     * pod asks (draining). Pods on the colour's node daemon are not listed: their bookings say where they are, and a
     * node whose pods all use the node daemon is never patched for them.
     */
    public NodeDomains annotation(Instant at) {
        var out = new ArrayList<DomainsCodec.Domain>();
        Set<Key> listed = new HashSet<>();
        for (Desired d : plan.values()) {
            DomainReport r = report(d.key());
            listed.add(d.key());
            out.add(new DomainsCodec.Domain(d.gpu(), d.key().id(), d.kind(), r == null ? "UNKNOWN" : r.state().name(), d.pods().size(),
                    r == null ? 0 : r.faults(), r == null || r.lastFault() == null ? null : r.lastFault().at(), d.who()));
        }
        reports.forEach((colour, byId) -> byId.values().forEach(r -> {
            Gpu g = r.gpu() == null ? null : hardware.gpuByUuid(r.gpu());
            if (g == null || !listed.add(new Key(colour, r.id()))) return;
            out.add(new DomainsCodec.Domain(g.index(), r.id(), r.kind() == null ? FaultDomains.Kind.TENANT : r.kind(), r.state().name(), 0, r.faults(),
                    r.lastFault() == null ? null : r.lastFault().at(), "-"));
        }));
        out.sort(Comparator.comparingInt(DomainsCodec.Domain::gpu));
        var s = new ArrayList<DomainsCodec.Suspect>();
        suspects.forEach((w, until) -> s.add(new DomainsCodec.Suspect(w, until)));
        s.sort(Comparator.comparing(DomainsCodec.Suspect::workload));
        return new NodeDomains(at, out, s);
    }
}
