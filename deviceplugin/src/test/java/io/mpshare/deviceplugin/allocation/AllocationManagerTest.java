package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.testkit.RecordingWrites;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.node.NodeBookings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllocationManagerTest {
    /** The context reserve the test pods were booked with, which each cap adds (its value is calibrated elsewhere). */
    long R;
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-aaaa", "NVIDIA H200", 143_771, true),
            new Gpu(1, "GPU-bbbb", "NVIDIA H200", 143_771, true)));
    static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    final RecordingWrites writes = new RecordingWrites();
    String colour = "blue";
    /** What the direct read of the node's pods finds (a test sets it). */
    AllocateHooks.Fallback fallback = budget -> {};
    AnswerSink sink = AnswerSink.NONE;
    final NodeBookings bookings = new NodeBookings("n1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
    final AllocationManager manager = manager(false, bookings);
    final AllocationBook book = manager.book();
    final AtomicInteger ids = new AtomicInteger();

    /** A manager over {@code bookings}, as the node agent wires it: pods reach it through the checked bookings. */
    AllocationManager manager(boolean devShm, NodeBookings bookings) {
        var b = new AllocationBook(bookings, MemoryUnit.GIB, INV, () -> colour, new AnswerLog(), new AnswerSink() {
            @Override public void answered(Allocation a) { sink.answered(a); }

            @Override public void cleared(String uid) { sink.cleared(uid); }
        });
        bookings.addListener(b);
        return new AllocationManager(b, new AnswerBuilder(Path.of(Names.RUN_DIR), devShm, MemoryUnit.GIB), InstantSource.fixed(T0),
                AllocationManager.ChangeWaiter.NONE, Duration.ZERO, new AllocateHooks(() -> {}, budget -> fallback.refresh(budget), Duration.ZERO));
    }

    /** Allocate refused the call; the message is the reason kubelet would show. */
    static final class Refused extends Exception {
        Refused(String reason) { super(reason); }
    }

    static Grant allocate(AllocationManager m, List<String> ids) throws Refused {
        return switch (m.allocate(ids)) {
            case Decision.Answered a -> a.grant();
            case Decision.Refused r -> throw new Refused(r.reason());
        };
    }

    Grant allocate(List<String> ids) throws Refused { return allocate(manager, ids); }

    /** The non-blocking decision: empty when the informer may be behind. */
    Optional<Grant> tryAllocate(List<String> ids) throws Refused {
        return switch (manager.decide(ids)) {
            case Decision.Answered a -> Optional.of(a.grant());
            case Decision.Refused r -> throw new Refused(r.reason());
            case Decision.Unknown u -> Optional.empty();
            case Decision.Waiting w -> Optional.empty();
        };
    }

    List<String> devices(int n) { return devices("GPU-aaaa", n); }

    List<String> devices(String gpu, int n) {
        var out = new ArrayList<String>();
        for (int i = 0; i < n; i++) out.add(DeviceIds.id(gpu, ids.getAndIncrement()));
        return out;
    }

    /** As kubelet does: GetPreferredAllocation's choice (steered to the booked GPU), then Allocate with those IDs. */
    Grant admit(int units) throws Exception {
        var t = manager.target(units);
        String gpu = t instanceof AllocationManager.Target.Placed p ? p.candidate().allocation().gpuUuids().getFirst() : "GPU-aaaa";
        var d = devices(gpu, units);
        if (t instanceof AllocationManager.Target.Placed p) manager.preferred(d, p);
        return allocate(d);
    }

    Pod add(Pod p) {
        bookings.upserted(p);
        book.allocationOf(KubePod.of(p).key()).ifPresent(a -> R = a.demand().reserveMib());
        return p;
    }

    @Test void allocate_seedSample_sevenGiBPlusReserveOnItsGpu() throws Exception {
        add(TestPods.pod("mps-sample").mem("main", 7).hostIPC().on("n1").placed(INV, 1).build());
        Grant r = admit(7);
        assertThat(r.env())
                .containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb")
                .containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (7168 + R) + "M")
                .containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/blue/pipe")
                .containsEntry(AnswerBuilder.ENV_POD, "default/mps-sample")
                .containsEntry(AnswerBuilder.ENV_CONTAINER, "main")
                .containsEntry(Names.ACK_GPU_MEM_IDX, "1")
                .containsEntry(Names.ACK_GPU_MEM_POD, "7")
                .doesNotContainKey(Names.ENV_MPS_THREADS);
        assertThat(r.mounts()).containsExactly(new Grant.Mount("/run/mpshare/blue/pipe", "/run/mpshare/blue/pipe", true));
        assertThat(r.devices()).isEmpty();
        assertThat(book.fullyAnswered(p("mps-sample"))).isTrue();
        assertThat(writes.assigned()).as("assigned is written by the reconciler once pod-resources shows the IDs").isEmpty();
    }

    String p(String name) { return book.allocationOf(PodKey.of("default", name)).orElseThrow().podUid(); }

    @Test void allocate_twoGpus_capForEachVisibleOrdinal() throws Exception {
        add(TestPods.pod("wide").mem("main", 14).gpuCount(2).on("n1").placed(INV, 0, 1).build());
        var d = devices("GPU-aaaa", 7);
        d.addAll(devices("GPU-bbbb", 7));
        var r = allocate(d);
        assertThat(r.env()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa,GPU-bbbb")
                .containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (7168 + R) + "M,1=" + (7168 + R) + "M")
                .containsEntry(AnswerBuilder.ENV_GPU_INDEX, "0,1");
    }

    @Test void allocate_coreAsked_threadPercentage() throws Exception {
        add(TestPods.pod("p").memCore("main", 4, 30).on("n1").placed(INV, 0).build());
        assertThat(allocate(devices(4)).env()).containsEntry(Names.ENV_MPS_THREADS, "30");
    }

    @Test void allocate_greenGeneration_pipeOfGreen() throws Exception {
        colour = "green";
        add(TestPods.pod("p").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThat(allocate(devices(2)).env()).containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/green/pipe");
    }

    @Test void allocate_devShmFlag_mountsDevShm() throws Exception {
        var other = new NodeBookings("n1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
        var m = manager(true, other);
        other.upserted(TestPods.pod("p").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThat(allocate(m, devices(2)).mounts()).extracting(Grant.Mount::containerPath).contains("/dev/shm");
    }

    @Test void allocate_sameUnits_earliestArrivalFirst() throws Exception {
        // kubelet admits pods in the order its watch delivers them, which is the order ours does (not the assume time)
        add(TestPods.pod("first").mem("main", 3).on("n1").placed(INV, 0).assumedAt(T0.plusSeconds(5)).build());
        add(TestPods.pod("second").mem("main", 3).on("n1").placed(INV, 1).assumedAt(T0).build());
        assertThat(admit(3).env()).containsEntry(AnswerBuilder.ENV_POD, "default/first").containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa");
        assertThat(admit(3).env()).containsEntry(AnswerBuilder.ENV_POD, "default/second").containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb");
    }

    @Test void allocate_unitsDiffer_matchesBySize() throws Exception {
        add(TestPods.pod("small").mem("main", 2).on("n1").placed(INV, 0).assumedAt(T0).build());
        add(TestPods.pod("big").mem("main", 9).on("n1").placed(INV, 1).assumedAt(T0.plusSeconds(1)).build());
        assertThat(allocate(devices(9)).env()).containsEntry(AnswerBuilder.ENV_POD, "default/big");
    }

    @Test void allocate_initThenApp_assignedOnlyAfterLastContainer() throws Exception {
        add(TestPods.pod("p").initMem("setup", 3).mem("main", 7).on("n1").placed(INV, 0).build());
        assertThat(allocate(devices(3)).env()).containsEntry(AnswerBuilder.ENV_CONTAINER, "setup");
        assertThat(book.fullyAnswered(p("p"))).isFalse();
        assertThat(allocate(devices(7)).env()).containsEntry(AnswerBuilder.ENV_CONTAINER, "main");
        assertThat(book.fullyAnswered(p("p"))).isTrue();
    }

    @Test void allocate_colourSwitchBetweenContainers_recordsBoth() throws Exception {
        add(TestPods.pod("p").initMem("setup", 3).mem("main", 7).on("n1").placed(INV, 0).build());
        allocate(devices(3));
        colour = "green";
        allocate(devices(7));
        assertThat(book.coloursOf(p("p"))).isEqualTo("blue,green");
    }

    @Test void allocate_podPartlyAnswered_goesBeforeOlderPod() throws Exception {
        add(TestPods.pod("two").mem("a", 4).mem("b", 4).on("n1").placed(INV, 0).assumedAt(T0.plusSeconds(10)).build());
        allocate(devices(4));
        add(TestPods.pod("older").mem("main", 4).on("n1").placed(INV, 1).assumedAt(T0).build());
        var r = allocate(devices(4));
        assertThat(r.env()).containsEntry(AnswerBuilder.ENV_POD, "default/two").containsEntry(AnswerBuilder.ENV_CONTAINER, "b");
    }

    @Test void allocate_noPodOfThatSize_refusedNamingWhatWaits() {
        add(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 0).build());
        assertThatThrownBy(() -> allocate(devices(5))).isInstanceOf(Refused.class)
                .hasMessageContaining("no pod bound to node n1 waits for a container of 5 GiB")
                .hasMessageContaining("default/p [3]");
    }

    @Test void allocate_podWithoutAllocation_refusedAsNotPlacedByExtender() {
        add(TestPods.pod("preset").mem("main", 7).on("n1").build());
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class)
                .hasMessageContaining("pod default/preset asks aliyun.com/gpu-mem but carries no mpshare.io/allocation")
                .hasMessageContaining("must be placed by the mpshare scheduler extender");
    }

    @Test void allocate_malformedAllocation_refusedWithTheReason() {
        add(TestPods.pod("bad").mem("main", 7).on("n1").annotation(Names.ANN_ALLOCATION, "v1;node=n1;gpus=x").build());
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class)
                .hasMessageContaining("mpshare.io/allocation of pod default/bad cannot be read");
    }

    @Test void allocate_allocationNamesAnotherNode_refused() {
        Pod p = TestPods.pod("elsewhere").mem("main", 7).on("n2").placed(INV, 0).build();
        add(p);
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class)
                .hasMessageContaining("default/elsewhere has an allocation for node n2, not n1");
    }

    @Test void allocate_podAlreadyAssigned_notAnsweredAgain() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).annotation(Names.ANN_ASSIGNED, "true").build());
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class);
    }

    @Test void allocate_sameContainerNeverTwice_evenBeforeAssignedComesBack() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        allocate(devices(7));
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class);
    }

    @Test void allocate_deletedPod_forgotten() {
        Pod p = add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        bookings.deleted(p);
        assertThatThrownBy(() -> allocate(devices(7))).isInstanceOf(Refused.class);
    }

    @Test void allocate_thiefArrivesFirst_refusedAtOnceAndNeighbourKeepsItsGpu() throws Exception {
        add(TestPods.pod("thief").mem("main", 7).on("n1").build());                       // preset nodeName, no annotation
        add(TestPods.pod("victim").mem("main", 7).on("n1").placed(INV, 1).build());
        // kubelet admits the thief first (it arrived first): no preference for it, and its Allocate is refused at once
        assertThat(manager.target(7)).isInstanceOf(AllocationManager.Target.Unplaced.class);
        assertThatThrownBy(() -> tryAllocate(devices("GPU-bbbb", 7))).isInstanceOf(Refused.class)
                .hasMessageContaining("default/thief");
        var r = admit(7);
        assertThat(r.env()).containsEntry(AnswerBuilder.ENV_POD, "default/victim").containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb");
    }

    @Test void allocate_thiefAfterNeighbour_neighbourAnsweredThiefRefused() throws Exception {
        add(TestPods.pod("victim").mem("main", 7).on("n1").placed(INV, 1).build());
        add(TestPods.pod("thief").mem("main", 7).on("n1").build());
        assertThat(admit(7).env()).containsEntry(AnswerBuilder.ENV_POD, "default/victim");
        assertThatThrownBy(() -> admit(7)).isInstanceOf(Refused.class).hasMessageContaining("default/thief");
    }

    @Test void allocate_idsOnAnotherGpu_answerFollowsTheIdsAndPolicerIsTold() throws Exception {
        var told = new ArrayList<Allocation>();
        sink = new AnswerSink() {
            @Override public void answered(Allocation a) { told.add(a); }

            @Override public void cleared(String uid) { }
        };
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        var r = allocate(devices("GPU-bbbb", 7));
        assertThat(r.env()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb").containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (7168 + R) + "M")
                .containsEntry(Names.ACK_GPU_MEM_IDX, "1");
        assertThat(told).singleElement().satisfies(a -> assertThat(a.gpuIndices()).containsExactly(1));
    }

    @Test void allocate_mixedAnswersAcrossContainers_eachContainerGetsItsOwnIds() throws Exception {
        add(TestPods.pod("two").mem("a", 4).mem("b", 4).on("n1").placed(INV, 0).build());
        assertThat(allocate(devices("GPU-aaaa", 4)).env()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa")
                .containsEntry(AnswerBuilder.ENV_CONTAINER, "a");
        assertThat(allocate(devices("GPU-bbbb", 4)).env()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb")
                .containsEntry(AnswerBuilder.ENV_CONTAINER, "b");
        assertThat(book.answeredGpus(p("two"))).containsEntry("a", List.of(0)).containsEntry("b", List.of(1));
    }

    @Test void allocate_idsSplitUnevenly_capPerGpuFromTheIds() throws Exception {
        add(TestPods.pod("wide").mem("main", 14).gpuCount(2).on("n1").placed(INV, 0, 1).build());
        var d = devices("GPU-aaaa", 10);
        d.addAll(devices("GPU-bbbb", 4));
        assertThat(allocate(d).env()).containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (10240 + R) + "M,1=" + (4096 + R) + "M");
    }

    @Test void allocate_preferredIdsLinkToTheirPod_evenWhenAnotherArrivedEarlier() throws Exception {
        add(TestPods.pod("a").mem("main", 3).on("n1").placed(INV, 0).build());
        add(TestPods.pod("b").mem("main", 3).on("n1").placed(INV, 1).build());
        var tb = new AllocationManager.Target.Placed(book.allocationOf(PodKey.of("default", "b"))
                .map(x -> io.mpshare.deviceplugin.allocation.Candidate.placed(x, MemoryUnit.GIB, 2)).orElseThrow(), 0);
        var d = devices("GPU-bbbb", 3);
        manager.preferred(d, tb);
        assertThat(allocate(d).env()).containsEntry(AnswerBuilder.ENV_POD, "default/b");
    }

    @Test void allocate_podNotInInformerYet_directReadThenAnswered() throws Exception {
        fallback = budget -> add(TestPods.pod("late").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThat(tryAllocate(devices(2))).isEmpty();
        assertThat(allocate(devices(2)).env()).containsEntry(AnswerBuilder.ENV_POD, "default/late");
    }

    @Test void allocate_thiefNotInInformerYet_directReadThenRefused() {
        fallback = budget -> add(TestPods.pod("thief").mem("main", 2).on("n1").build());
        assertThatThrownBy(() -> allocate(devices(2))).isInstanceOf(Refused.class).hasMessageContaining("default/thief");
    }

    @Test void allocate_idsOfNoGpuHere_refused() {
        add(TestPods.pod("p").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThatThrownBy(() -> allocate(List.of("GPU-zzzz-_-0", "GPU-zzzz-_-1"))).isInstanceOf(Refused.class)
                .hasMessageContaining("names no GPU of this node");
    }

    @Test void refusal_readsWellAfterKubeletAppendsItsWords() {
        add(TestPods.pod("preset").mem("main", 7).on("n1").build());
        add(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 0).build());
        for (int units : new int[]{7, 5}) {
            try {
                allocate(devices(units));
                throw new AssertionError("not refused");
            } catch (Refused e) {
                String kubelet = "Allocate failed due to rpc error: code = FailedPrecondition desc = " + e.getMessage() + ", which is unexpected";
                assertThat(kubelet).doesNotContain(")., which").doesNotContain("., which").doesNotContain("\n");
            }
        }
    }

    @Test void awaitTarget_informerBehind_readsDirectly() {
        fallback = budget -> add(TestPods.pod("late").mem("main", 2).on("n1").placed(INV, 1).build());
        assertThat(manager.target(2)).isInstanceOf(AllocationManager.Target.Unknown.class);
        assertThat(manager.awaitTarget(2)).isInstanceOfSatisfying(AllocationManager.Target.Placed.class,
                t -> assertThat(t.candidate().allocation().gpuIndices()).containsExactly(1));
    }

    @Test void allocate_concurrentCalls_eachContainerAnsweredOnce() throws Exception {
        for (int i = 0; i < 110; i++) add(TestPods.pod("p" + i).mem("main", 1).on("n1").placed(INV, i % 2).assumedAt(T0.plusSeconds(i)).build());
        var pool = Executors.newFixedThreadPool(8);
        var futures = new ArrayList<Future<String>>();
        for (int i = 0; i < 110; i++) {
            var d = devices(1);
            futures.add(pool.submit(() -> allocate(d).env().get(AnswerBuilder.ENV_POD)));
        }
        Set<String> pods = ConcurrentHashMap.newKeySet();
        for (var f : futures) assertThat(pods.add(f.get())).isTrue();
        pool.shutdown();
        assertThat(pods).hasSize(110);
    }

    @Test void tryAllocate_noMatch_emptyAndNothingClaimed() throws Exception {
        add(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 0).build());
        assertThat(tryAllocate(devices(5))).isEmpty();
        assertThat(book.fullyAnswered(p("p"))).isFalse();
        assertThat(tryAllocate(devices(3))).get().extracting(r -> r.env().get(AnswerBuilder.ENV_POD)).isEqualTo("default/p");
        assertThat(tryAllocate(devices(3))).isEmpty();
    }

    @Test void target_doesNotClaim() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 1).build());
        assertThat(manager.target(7)).isInstanceOfSatisfying(AllocationManager.Target.Placed.class,
                t -> assertThat(t.candidate().allocation().gpuUuids()).isEqualTo(List.of("GPU-bbbb")));
        assertThat(manager.target(7)).isInstanceOf(AllocationManager.Target.Placed.class);
        allocate(devices("GPU-bbbb", 7));
        assertThat(manager.target(7)).isInstanceOf(AllocationManager.Target.Unknown.class);
    }

    /** Which daemon serves the pods, moved by hand; {@link #version} moves on every change, as the domain controller's. */
    static final class HandDaemons implements Daemons {
        volatile Served served;
        private long version;

        HandDaemons(Served served) { this.served = served; }

        @Override public Served daemonFor(String podUid, String colour, List<String> gpuUuids) { return served; }

        synchronized void set(Served s) {
            served = s;
            version++;
            notifyAll();
        }

        @Override public synchronized long version() { return version; }

        @Override public synchronized boolean awaitChange(long seen, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (version == seen) {
                long left = end - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }

    AllocationManager withDaemons(Daemons daemons, Duration wait) {
        var b = new AllocationBook(bookings, MemoryUnit.GIB, INV, () -> colour, new AnswerLog(), AnswerSink.NONE);
        bookings.addListener(b);
        return new AllocationManager(b, new AnswerBuilder(Path.of(Names.RUN_DIR), false, MemoryUnit.GIB), InstantSource.fixed(T0),
                AllocationManager.ChangeWaiter.NONE, Duration.ZERO, new AllocateHooks(() -> {}, budget -> {}, Duration.ZERO), daemons, wait);
    }

    static final String DOMAIN_PIPE = "/run/mpshare/blue/d/t-0123456789ab/pipe";

    @Test void allocate_domain_answersItsPipeDirectoryReadOnly_andNamesIt() throws Exception {
        var m = withDaemons(new HandDaemons(new Daemons.Served.Ready(DOMAIN_PIPE, "t-0123456789ab")), Duration.ZERO);
        add(TestPods.pod("a").namespace("team-a").mem("main", 7).on("n1").placed(INV, 0).build());
        Grant g = allocate(m, devices("GPU-aaaa", 7));
        assertThat(g.env()).containsEntry(Names.ENV_MPS_PIPE, DOMAIN_PIPE).containsEntry(AnswerBuilder.ENV_DOMAIN, "t-0123456789ab");
        assertThat(g.mounts()).containsExactly(new Grant.Mount(DOMAIN_PIPE, DOMAIN_PIPE, true));
    }

    @Test void allocate_domainNotServing_refusedWithItsStateAfterTheWait_nothingClaimed_answeredOnceItServes() throws Exception {
        var daemons = new HandDaemons(new Daemons.Served.NotReady("t-0123456789ab", "its domain t-0123456789ab on GPU 0 faulted"));
        var m = withDaemons(daemons, Duration.ZERO);
        add(TestPods.pod("a").namespace("team-a").mem("main", 7).on("n1").placed(INV, 0).build());
        var ids = devices("GPU-aaaa", 7);
        assertThat(m.decide(ids)).isInstanceOf(Decision.Waiting.class);
        assertThatThrownBy(() -> allocate(m, ids)).isInstanceOf(Refused.class)
                .hasMessage("mpshare: the MPS daemon of pod team-a/a does not serve: its domain t-0123456789ab on GPU 0 faulted "
                        + "(waited 0 ms; the pod's owner may create it again)");
        assertThat(m.book().fullyAnswered(book.allocationOf(PodKey.of("team-a", "a")).orElseThrow().podUid())).isFalse();
        daemons.set(new Daemons.Served.Ready(DOMAIN_PIPE, "t-0123456789ab"));
        assertThat(allocate(m, ids).env()).containsEntry(Names.ENV_MPS_PIPE, DOMAIN_PIPE);
    }

    @Test void allocate_waitsOffTheEventLoopForTheDomain_answeredWhenItComesUpWithinTheWait() throws Exception {
        var daemons = new HandDaemons(new Daemons.Served.NotReady("t-0123456789ab", "its domain t-0123456789ab on GPU 0 is starting"));
        var m = withDaemons(daemons, Duration.ofSeconds(60));
        add(TestPods.pod("a").namespace("team-a").mem("main", 7).on("n1").placed(INV, 0).build());
        var ids = devices("GPU-aaaa", 7);
        try (var exec = Executors.newSingleThreadExecutor()) {
            long seen = daemons.version();
            Future<Decision.Final> f = exec.submit(() -> m.allocate(ids));
            daemons.set(new Daemons.Served.Ready(DOMAIN_PIPE, "t-0123456789ab"));
            assertThat(seen).isLessThan(daemons.version());
            assertThat(f.get()).isInstanceOfSatisfying(Decision.Answered.class,
                    a -> assertThat(a.grant().env()).containsEntry(Names.ENV_MPS_PIPE, DOMAIN_PIPE));
        }
    }
}
