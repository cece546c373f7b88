package io.mpshare.sim;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.model.ServingDomain;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.sim.model.SharingModel;
import io.mpshare.sim.workload.SimPod;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One model on one cluster: the discrete-event loop.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Each pod's demand is resolved once by the core's {@link DemandResolver} with the model's context
 *     reserve. A pod that is invalid, or that does not fit an empty node, is rejected on arrival.</li>
 * <li>Arrivals join a FIFO queue. After every event a scheduling pass tries the queue in order and places
 *     what fits; it stops once the head and {@code backfill} more pods have failed (bounded backfill).</li>
 * <li>Placing: {@link NodeIndex} picks the node, then {@link PlacementEngine#assume} books it in the real
 *     {@link Ledger}, which re-evaluates the policy on that node; a refusal there is a bug and throws.
 *     Departures {@link Ledger#release} the booking.</li>
 * <li>Elastic mode adds a node whenever a pod fits nowhere, so nothing waits: its peak GPUs in use is the
 *     number of GPUs this model needs to run the workload without pending.</li>
 * <li>Metrics are kept per GPU and summed incrementally; integrals are taken between events.</li>
 * <li>With several tenants ({@link Scenario#tenants}) each one-GPU pod is in its tenant's fault domain, so placement
 *     weighs one more MPS daemon on a GPU as the extender does; daemons per GPU in use are counted from the ledger.</li>
 * <li>The ledger's clock is the simulated time. Not thread-safe; one instance per run.</li>
 * </ul>
 */
final class PolicyRun {
    private final Scenario scenario;
    private final SharingModel model;
    private final boolean elastic;
    private final Progress progress;
    private final String runName;
    private final List<SimPod> pods;
    private final int gpn;

    private long now;
    private final Ledger ledger;
    private final PlacementEngine engine;
    private final NodeIndex index;
    private final EventQueue events;

    private final GpuDemand[] demand;
    private final String[] rejectReason;
    private final int[] podNode;
    private final PodKey[] keys;
    /** Fixed run: nodes 0..touched-1 have been used; while elasticEquivalent, the elastic run would decide exactly the same. */
    private int touched;
    private boolean elasticEquivalent = true;
    private final long[] waits;
    private int placed, rejected, placeable;
    private final TreeMap<String, Integer> rejectReasons = new TreeMap<>();
    private final LinkedList<Integer> queue = new LinkedList<>();
    private long minChargeMib = Long.MAX_VALUE;
    private int minCore = Integer.MAX_VALUE;

    private long[] gpuRequested = new long[0];
    private long[] gpuReserve = new long[0];
    private int[] gpuPods = new int[0];
    private long[] gpuStranded = new long[0];
    private int[] gpuDaemons = new int[0];
    private int inUse, peakInUse, daemonsTotal, peakDaemons;
    private double daemonsInt;
    private long requestedTotal, reserveTotal, strandedTotal;
    private double inUseInt, capInt, requestedInt, reserveInt, strandedInt;
    private long lastT = -1, firstT = -1;

    private final long stepMs;
    private long nextSample;
    private final SeriesBuilder series = new SeriesBuilder();

    PolicyRun(Scenario scenario, SharingModel model, boolean elastic, Progress progress) {
        this.scenario = scenario;
        this.model = model;
        this.elastic = elastic;
        this.progress = progress;
        this.runName = model.id() + (elastic ? " (elastic)" : "");
        this.pods = scenario.workload().pods();
        this.gpn = scenario.cluster().gpusPerNode();
        this.ledger = new Ledger(new SimClock(), Duration.ofMinutes(5));
        this.engine = new PlacementEngine(ledger, model.policy());
        int n = pods.size();
        int maxCount = 1;
        for (SimPod p : pods) maxCount = Math.max(maxCount, p.gpuCount());
        int maxNodes = elastic ? (int) Math.min(Integer.MAX_VALUE / 2, (long) n * maxCount / gpn + 2) : scenario.cluster().nodes();
        this.index = new NodeIndex(ledger, model, scenario.cluster(), maxNodes);
        long[] arrivals = new long[n];
        for (int i = 0; i < n; i++) arrivals[i] = pods.get(i).arrivalMs();
        this.events = new EventQueue(arrivals);
        this.demand = new GpuDemand[n];
        this.rejectReason = new String[n];
        this.podNode = new int[n];
        this.keys = new PodKey[n];
        this.waits = new long[n];
        this.stepMs = Math.max(60_000, (scenario.workload().lastArrivalMs() + 239) / 240);
        resolveDemands();
    }

    private void resolveDemands() {
        var resolver = new DemandResolver(model.reserveMib());
        NodeState empty = NodeState.empty(scenario.cluster().inventory("empty"));
        var cache = new HashMap<Long, Object>();
        for (SimPod p : pods) {
            long key = p.memMib() * 16_384 + p.corePercent() * 128L + p.gpuCount();
            Object r = cache.computeIfAbsent(key, k -> resolve(resolver, empty, p));
            if (r instanceof GpuDemand d) {
                demand[p.id()] = scenario.tenants() == 1 ? d : d.withDomain(new ServingDomain(Kind.TENANT, "tenant-" + scenario.tenantOf(p.id())));
                placeable++;
                minChargeMib = Math.min(minChargeMib, d.chargeMib());
                minCore = Math.min(minCore, d.chargeCore());
            } else {
                rejectReason[p.id()] = (String) r;
            }
        }
        if (minChargeMib == Long.MAX_VALUE) { minChargeMib = 1; minCore = 0; }
    }

    private Object resolve(DemandResolver resolver, NodeState empty, SimPod p) {
        var info = new PodInfo(PodKey.of("sim", "probe"), "", List.of(ContainerRequest.app("main", p.memMib(), p.corePercent())),
                p.gpuCount(), OptionalLong.empty());
        return switch (resolver.resolve(info)) {
            case DemandResolver.Resolution.Invalid i -> "invalid request: " + i.reason();
            case DemandResolver.Resolution.NoGpu n -> "asks no GPU";
            case DemandResolver.Resolution.Resolved r -> model.policy().evaluate(empty, r.demand()) instanceof Evaluation.Fits
                    ? r.demand() : "fits no node of this cluster even when empty";
        };
    }

    RunResult run() {
        if (!elastic) for (int i = 0; i < scenario.cluster().nodes(); i++) addNode();
        long total = pods.size() + (long) placeable, done = 0, tick = Math.max(1, total / 100);
        progress.update(runName, 0, total);
        while (!events.isEmpty()) {
            long t = events.peekTime();
            advance(t);
            boolean departure = events.departureNext();
            int pod = events.poll();
            if (departure) depart(pod); else arrive(pod);
            schedule();
            if (++done % tick == 0) progress.update(runName, Math.min(done, total), total);
        }
        progress.update(runName, total, total);
        if (!queue.isEmpty()) throw new IllegalStateException(runName + ": " + queue.size() + " pods still queued after the last event");
        return result();
    }

    private void arrive(int pod) {
        if (rejectReason[pod] != null) {
            rejected++;
            rejectReasons.merge(rejectReason[pod], 1, Integer::sum);
            return;
        }
        queue.addLast(pod);
    }

    private void schedule() {
        int failed = 0;
        var it = queue.iterator();
        while (it.hasNext() && failed <= scenario.backfill()) {
            int pod = it.next();
            if (place(pod)) it.remove(); else failed++;
        }
    }

    private boolean place(int pod) {
        GpuDemand d = demand[pod];
        int node = index.select(d);
        if (node < 0) {
            if (!elastic) {
                elasticEquivalent = false;
                return false;
            }
            node = addNode();
            if (index.select(d) != node) throw new IllegalStateException(runName + ": pod " + pod + " does not fit a fresh node");
        }
        if (!elastic && elasticEquivalent && node >= touched) {
            // a never-used node: the elastic run would make the same move only if it is the next one and no used node fits
            elasticEquivalent = node == touched && !index.anyFits(d, touched);
            touched = Math.max(touched, node + 1);
        }
        AssumeResult r = engine.assume(key(pod), "", index.name(node), d);
        if (!(r instanceof AssumeResult.Assumed a))
            throw new IllegalStateException(runName + ": the ledger refused the node the index chose for pod " + pod + ": " + r);
        podNode[pod] = node;
        waits[placed++] = now - pods.get(pod).arrivalMs();
        account(node, a.allocation(), +1);
        events.scheduleDeparture(now + pods.get(pod).durationMs(), pod);
        return true;
    }

    private void depart(int pod) {
        Allocation a = ledger.release(key(pod)).orElseThrow(() -> new IllegalStateException(runName + ": pod " + pod + " departs but is not booked"));
        account(podNode[pod], a, -1);
    }

    private PodKey key(int pod) {
        PodKey k = keys[pod];
        return k != null ? k : (keys[pod] = new PodKey("sim", "pod-" + pod));
    }

    private int addNode() {
        int node = index.addNode();
        int gpus = index.size() * gpn;
        if (gpus > gpuPods.length) {
            int cap = Math.max(gpus, gpuPods.length * 2);
            gpuRequested = Arrays.copyOf(gpuRequested, cap);
            gpuReserve = Arrays.copyOf(gpuReserve, cap);
            gpuPods = Arrays.copyOf(gpuPods, cap);
            gpuStranded = Arrays.copyOf(gpuStranded, cap);
            gpuDaemons = Arrays.copyOf(gpuDaemons, cap);
        }
        return node;
    }

    /** Books (+1) or frees (-1) the allocation in the per-GPU metrics and refreshes the index. */
    private void account(int node, Allocation a, int sign) {
        index.refresh(node);
        NodeState s = index.state(node);
        GpuDemand d = a.demand();
        long asked = d.requestedMibPerGpu();
        long reserve = d.chargeMib() - asked;
        for (int idx : a.gpuIndices()) {
            int pos = s.position(idx);
            int g = node * gpn + pos;
            int before = gpuPods[g];
            gpuPods[g] += sign;
            gpuRequested[g] += sign * asked;
            gpuReserve[g] += sign * reserve;
            requestedTotal += sign * asked;
            reserveTotal += sign * reserve;
            if (before == 0 && gpuPods[g] > 0) inUse++;
            if (before > 0 && gpuPods[g] == 0) inUse--;
            long stranded = gpuPods[g] == 0 ? 0 : Math.max(0, s.freeMib(pos) - model.usableFreeMib(s, pos, minChargeMib, minCore));
            strandedTotal += stranded - gpuStranded[g];
            gpuStranded[g] = stranded;
            int daemons = s.domainsOn(pos);
            daemonsTotal += daemons - gpuDaemons[g];
            gpuDaemons[g] = daemons;
            peakDaemons = Math.max(peakDaemons, daemons);
        }
        peakInUse = Math.max(peakInUse, inUse);
    }

    /** Moves the clock to {@code t}: integrates the metrics over [lastT, t) and takes the samples due. */
    private void advance(long t) {
        if (firstT < 0) { firstT = t; lastT = t; nextSample = 0; }
        while (nextSample <= t) {
            long cap = (long) inUse * scenario.cluster().gpuMib();
            series.add(nextSample, inUse, cap == 0 ? 0 : (double) requestedTotal / cap, queue.size(), strandedTotal);
            nextSample += stepMs;
        }
        double dt = t - lastT;
        inUseInt += inUse * dt;
        capInt += (double) inUse * scenario.cluster().gpuMib() * dt;
        requestedInt += requestedTotal * dt;
        reserveInt += reserveTotal * dt;
        strandedInt += strandedTotal * dt;
        daemonsInt += daemonsTotal * dt;
        lastT = t;
        now = t;
    }

    private RunResult result() {
        long[] w = Arrays.copyOf(waits, placed);
        Arrays.sort(w);
        double span = Math.max(1, lastT - Math.max(0, firstT));
        return new RunResult(model.id(), model.label(), elastic, elastic ? index.size() : scenario.cluster().nodes(),
                elastic ? index.size() : touched, !elastic && elasticEquivalent, gpn, pods.size(), placed, rejected,
                Collections.unmodifiableMap(rejectReasons), peakInUse, inUseInt / span,
                capInt == 0 ? 0 : requestedInt / capInt, capInt == 0 ? 0 : reserveInt / capInt,
                capInt == 0 ? 0 : strandedInt / capInt, strandedInt / span, w, Math.max(0, lastT),
                series.build(stepMs), inUseInt == 0 ? 0 : daemonsInt / inUseInt, peakDaemons);
    }

    /** The ledger's clock: simulated time. */
    private final class SimClock implements InstantSource {
        @Override public Instant instant() { return Instant.ofEpochMilli(now); }
    }

    private static final class SeriesBuilder {
        private long[] t = new long[256];
        private int[] gpus = new int[256];
        private double[] util = new double[256];
        private int[] queued = new int[256];
        private long[] stranded = new long[256];
        private int n;

        void add(long time, int inUse, double u, int q, long s) {
            if (n == t.length) {
                int cap = n * 2;
                t = Arrays.copyOf(t, cap); gpus = Arrays.copyOf(gpus, cap); util = Arrays.copyOf(util, cap);
                queued = Arrays.copyOf(queued, cap); stranded = Arrays.copyOf(stranded, cap);
            }
            t[n] = time; gpus[n] = inUse; util[n] = u; queued[n] = q; stranded[n] = s;
            n++;
        }

        Series build(long step) {
            return new Series(step, Arrays.copyOf(t, n), Arrays.copyOf(gpus, n), Arrays.copyOf(util, n), Arrays.copyOf(queued, n), Arrays.copyOf(stranded, n));
        }
    }
}
