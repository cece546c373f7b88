package io.mpshare.core.policy;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.FitIndex;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.ServingDomain;
import io.mpshare.core.props.Props;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.mpshare.core.CoreFixtures.*;
import static io.mpshare.core.props.Props.between;
import static io.mpshare.core.props.Props.oneOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter index ({@link FitIndex}, kept by the ledger) always agrees with the policies' own {@code evaluate}
 * on the ledger's snapshots, after any sequence of ledger changes: node added, re-inventoried (health, GPU
 * count, over {@link FitIndex#WIDTH} GPUs), removed and added back; pods assumed, restored (over-booking
 * included), released. And the engine's filter (names as strings or as request bytes) keeps exactly the
 * nodes where evaluate fits, in order, with the same reasons. The same with the one-UID-per-daemon rule: pods
 * booked and asked with UIDs (none, a few small ones, one past what the index keeps inline, a negative one), the
 * index's UID summary and the engine's filter against evaluate of the policies with the rule on.
 */
class FitIndexProperties {

    record Case(long seed, int nodes, int ops) {}

    static Case cases(SplittableRandom r) { return new Case(r.nextLong(), between(r, 1, 40), between(r, 0, 300)); }

    private static NodeInventory inventory(SplittableRandom r, String name) {
        int n = oneOf(r, 1, 2, 4, 8, 8, 8, 10, 12);
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++)
            gpus.add(new Gpu(i, "GPU-" + name + "-" + i, "GPU", oneOf(r, 24_576L, 81_920L, 143_771L), r.nextInt(6) != 0));
        return new NodeInventory(name, gpus);
    }

    private static GpuDemand demand(SplittableRandom r) {
        int count = oneOf(r, 1, 1, 1, 2, 3);
        return GpuDemand.simple(between(r, 1, 90) * 1024L * count, oneOf(r, 0, 0, 10, 30, 60) * count, count, 512);
    }

    /** A UID for a pod: mostly none or one of a few, at times one the index does not keep inline, or a negative one. */
    private static java.util.OptionalLong uid(SplittableRandom r) {
        return switch (r.nextInt(12)) {
            case 0, 1, 2, 3 -> java.util.OptionalLong.empty();
            case 4, 5, 6 -> java.util.OptionalLong.of(1000);
            case 7, 8 -> java.util.OptionalLong.of(1001);
            case 9 -> java.util.OptionalLong.of(0);
            case 10 -> java.util.OptionalLong.of(FitIndex.MAX_UID + r.nextInt(2));
            default -> java.util.OptionalLong.of(-5);
        };
    }

    /** {@code d} running as {@code uid}, served by the node daemon, a tenant's daemon or a pod's own (several GPUs: the node daemon's). */
    private static GpuDemand withUid(SplittableRandom r, GpuDemand d, java.util.OptionalLong uid) {
        ServingDomain domain = switch (r.nextInt(4)) {
            case 0, 1 -> ServingDomain.NODE_DAEMON;
            case 2 -> ServingDomain.of(Kind.TENANT, "ns-" + r.nextInt(2), "", uid, d.gpuCount());
            default -> ServingDomain.of(Kind.POD, "ns-0", "pod-" + r.nextInt(1000), uid, d.gpuCount());
        };
        return new GpuDemand(d.gpuCount(), d.chargeMib(), d.chargeCore(), d.reserveMib(), d.requestedMib(), d.containers(), uid, domain);
    }

    /** Builds a ledger by random changes; returns it with every name ever used plus two never seen. */
    static Ledger build(SplittableRandom r, int nodes, int ops, List<String> names) { return build(r, nodes, ops, names, false); }

    /** {@link #build(SplittableRandom, int, int, List)}, with {@code uids} the pods booked run as random UIDs. */
    static Ledger build(SplittableRandom r, int nodes, int ops, List<String> names, boolean uids) {
        Ledger l = new Ledger(new io.mpshare.core.MutableClock(T0), TTL);
        for (int i = 0; i < nodes; i++) {
            String name = "node-" + i + (i % 7 == 3 ? "-\u00e9" : "");
            names.add(name);
            if (r.nextInt(8) != 0) l.upsertNode(inventory(r, name));
        }
        PlacementEngine e = new PlacementEngine(l, new BinpackPolicy());
        for (int op = 0; op < ops; op++) {
            String node = names.get(r.nextInt(names.size()));
            switch (r.nextInt(10)) {
                case 0 -> l.upsertNode(inventory(r, node));
                case 1 -> l.removeNode(node);
                case 2 -> l.release(key("p" + r.nextInt(ops + 1)));
                case 3 -> {
                    NodeState s = l.node(node);
                    if (s == null || s.gpuCount() == 0) continue;
                    int pos = r.nextInt(s.gpuCount());
                    GpuDemand booked = GpuDemand.simple(between(r, 1, 80) * 1024L, oneOf(r, 0, 30, 60), 1, 0);
                    l.restore(new Allocation(key("p" + op), "", node, List.of(s.gpuIndex(pos)), List.of(s.gpu(pos).uuid()),
                            uids ? withUid(r, booked, uid(r)) : booked, T0, Phase.BOUND));
                }
                default -> e.assume(key("p" + op), "", node, uids ? withUid(r, demand(r), uid(r)) : demand(r));
            }
        }
        names.add("never-seen");
        names.add("");
        return l;
    }

    @Test
    void index_agreesWithEvaluate_afterAnyChanges() {
        Props.check("FitIndexProperties.index_agreesWithEvaluate_afterAnyChanges", 200, FitIndexProperties::cases, c -> {
            SplittableRandom r = new SplittableRandom(c.seed());
            List<String> names = new ArrayList<>();
            Ledger l = build(r, c.nodes(), c.ops(), names);
            FitIndex.View v = l.fitIndex().view();
            List<PlacementPolicy> policies = List.of(new BinpackPolicy(), new SpreadPolicy(),
                    new FragmentationPolicy(TaskMix.ofDemands(List.of(io.mpshare.core.CoreFixtures.demand(8192, 0, 1), io.mpshare.core.CoreFixtures.demand(2 * 40_000, 0, 2)))));
            for (int q = 0; q < 8; q++) {
                GpuDemand d = demand(r);
                for (String name : names) {
                    NodeState s = l.node(name);
                    byte[] b = name.getBytes(StandardCharsets.UTF_8);
                    int slot = v.slot(name);
                    assertThat(v.slot(b, 0, b.length)).as("slot by bytes of %s", name).isEqualTo(slot);
                    int room = v.room(slot, d.chargeMib(), d.chargeCore());
                    assertThat(v.room(slot, d.chargeMib(), d.chargeCore(), d.gpuCount()))
                            .isEqualTo(room < 0 ? room : Math.min(room, d.gpuCount()));
                    if (s == null) { assertThat(room).as("absent %s", name).isEqualTo(FitIndex.ABSENT); continue; }
                    if (s.gpuCount() > FitIndex.WIDTH) { assertThat(room).as("wide %s", name).isEqualTo(FitIndex.WIDE); continue; }
                    for (PlacementPolicy p : policies)
                        assertThat(room >= d.gpuCount()).as("%s on %s for %s (room %d)", p.name(), s, d, room)
                                .isEqualTo(p.evaluate(s, d) instanceof Evaluation.Fits);
                }
                for (PlacementPolicy p : policies) checkFilter(new PlacementEngine(l, p), names, d);
            }
        });
    }

    @Test
    void indexWithUidRule_agreesWithEvaluate_afterAnyChanges() {
        Props.check("FitIndexProperties.indexWithUidRule_agreesWithEvaluate_afterAnyChanges", 200, FitIndexProperties::cases, c -> {
            SplittableRandom r = new SplittableRandom(c.seed());
            List<String> names = new ArrayList<>();
            Ledger l = build(r, c.nodes(), c.ops(), names, true);
            FitIndex.View v = l.fitIndex().view();
            TaskMix mix = TaskMix.ofDemands(List.of(io.mpshare.core.CoreFixtures.demand(8192, 0, 1), io.mpshare.core.CoreFixtures.demand(2 * 40_000, 0, 2)));
            List<PlacementPolicy> policies = List.of(new BinpackPolicy(true), new SpreadPolicy(true),
                    new FragmentationPolicy(mix, FragmentationPolicy.DEFAULT_TOLERANCE, true), new BinpackPolicy(false));
            for (int q = 0; q < 8; q++) {
                GpuDemand d = withUid(r, demand(r), uid(r));
                // as the engine asks: a UID only for a pod the rule judges (a known UID, served by the node daemon)
                long uid = d.underUidRule() && FitIndex.inlineUid(d.runAsUser().getAsLong()) ? d.runAsUser().getAsLong() : FitIndex.NO_UID;
                for (String name : names) {
                    NodeState s = l.node(name);
                    int slot = v.slot(name);
                    int plain = v.room(slot, d.chargeMib(), d.chargeCore(), d.gpuCount());
                    int room = v.room(slot, d.chargeMib(), d.chargeCore(), d.gpuCount(), uid);
                    if (s == null || s.gpuCount() > FitIndex.WIDTH || plain < d.gpuCount() || uid == FitIndex.NO_UID) {
                        assertThat(room).as("no UID answer without room or UID, %s", name).isEqualTo(plain);
                        continue;
                    }
                    if (room == FitIndex.UID_UNSURE) {
                        assertThat(s.uids().keySet()).as("unsure only for one UID not kept inline, %s", s).hasSize(1)
                                .allMatch(u -> !FitIndex.inlineUid(u));
                        continue;
                    }
                    boolean conflict = Fitting.uidConflict(s, d) != null;
                    assertThat(room).as("%s for %s (uids %s)", s, d, s.uids()).isEqualTo(conflict ? FitIndex.UID_CONFLICT : plain);
                    for (PlacementPolicy p : policies.subList(0, 3))
                        assertThat(room >= d.gpuCount()).as("%s on %s for %s (room %d)", p.name(), s, d, room)
                                .isEqualTo(p.evaluate(s, d) instanceof Evaluation.Fits);
                }
                for (PlacementPolicy p : policies) checkFilter(new PlacementEngine(l, p), names, d);
            }
        });
    }

    /** The engine's filter, both forms, against evaluate node by node. */
    private static void checkFilter(PlacementEngine e, List<String> names, GpuDemand d) {
        List<String> fits = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>(), unresolvable = new LinkedHashMap<>();
        for (String name : names) {
            NodeState s = e.ledger().node(name);
            if (s == null) { unresolvable.put(name, "absent"); continue; }
            switch (e.policy().evaluate(s, d)) {
                case Evaluation.Fits f -> fits.add(name);
                case Evaluation.Unfit u -> failed.put(name, u.reason());
                case Evaluation.Unresolvable u -> unresolvable.put(name, u.reason());
            }
        }
        PlacementEngine.FilterOutcome o = e.filter(d, names);
        assertThat(o.fits()).as("%s filter", e.policy().name()).isEqualTo(fits);
        assertThat(o.failed()).isEqualTo(failed);
        assertThat(o.unresolvable().keySet()).isEqualTo(unresolvable.keySet());

        // the same names packed into one buffer, with a byte of noise around each, as in a request body
        var buf = new java.io.ByteArrayOutputStream();
        int[] off = new int[names.size()], len = new int[names.size()];
        for (int i = 0; i < names.size(); i++) {
            buf.write('"');
            byte[] b = names.get(i).getBytes(StandardCharsets.UTF_8);
            off[i] = buf.size(); len[i] = b.length;
            buf.writeBytes(b);
            buf.write('"');
        }
        PlacementEngine.IndexedOutcome io = e.filter(d, buf.toByteArray(), off, len, names.size());
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < io.fitCount(); i++) kept.add(names.get(io.fits()[i]));
        assertThat(kept).as("%s filter by bytes", e.policy().name()).isEqualTo(fits);
        assertThat(io.failed()).isEqualTo(failed);
        assertThat(io.unresolvable().keySet()).isEqualTo(unresolvable.keySet());

        // reasons only when none is kept: the same nodes kept; no reasons beside them, every reason without them
        var lazy = e.filter(d, buf.toByteArray(), off, len, null, names.size(), null, PlacementEngine.Reasons.WHEN_NONE_KEPT);
        assertThat(java.util.Arrays.copyOf(lazy.fits(), lazy.fitCount())).as("%s filter, reasons when none kept", e.policy().name())
                .containsExactly(java.util.Arrays.copyOf(io.fits(), io.fitCount()));
        if (lazy.fitCount() > 0) assertThat(lazy.failed()).isEmpty();
        else assertThat(lazy.failed()).isEqualTo(failed);
        if (lazy.fitCount() > 0) assertThat(lazy.unresolvable()).isEmpty();
        else assertThat(lazy.unresolvable().keySet()).isEqualTo(unresolvable.keySet());

        // prioritize by bytes scores each position as prioritize by name does, known names looked up as the ledger's own
        byte[] bytes = buf.toByteArray();
        int[] scores = e.prioritize(d, bytes, off, len, null, names.size(), null);
        assertThat(scores).as("%s prioritize by bytes", e.policy().name())
                .containsExactly(e.prioritize(d, names).stream().mapToInt(PlacementEngine.NodeScore::score).toArray());
        FitIndex.View v = e.ledger().fitIndex().view();
        for (int i = 0; i < names.size(); i++) {
            int slot = v.slot(bytes, off[i], len[i]);
            assertThat(v.name(slot)).as("name of %s's slot", names.get(i)).isEqualTo(slot < 0 ? null : names.get(i));
        }
    }

    @Test
    void index_growsPastItsFirstTable() {
        Ledger l = new Ledger(new io.mpshare.core.MutableClock(T0), TTL);
        for (int i = 0; i < 3000; i++) l.upsertNode(new NodeInventory("n" + i, List.of(new Gpu(0, "G" + i, "GPU", 1000 + i, true))));
        FitIndex.View v = l.fitIndex().view();
        for (int i = 0; i < 3000; i++) {
            assertThat(v.room(v.slot("n" + i), 1000 + i, 100)).as("n%d", i).isEqualTo(1);
            assertThat(v.room(v.slot("n" + i), 1001 + i, 0)).as("n%d", i).isEqualTo(0);
        }
        assertThat(v.slot("n3000")).isEqualTo(-1);
    }
}
