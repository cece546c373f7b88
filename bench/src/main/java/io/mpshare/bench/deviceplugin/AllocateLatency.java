package io.mpshare.bench.deviceplugin;

import com.sun.management.OperatingSystemMXBean;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.deviceplugin.kubelet.MemoryHandler;
import io.mpshare.deviceplugin.kubelet.ResourceHandler;
import io.mpshare.deviceplugin.kubelet.ResourceServer;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.kube.KubePod;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Allocate latency as kubelet sees it: a blocking gRPC call over a unix socket to the real {@link ResourceServer},
 * {@link MemoryHandler} and {@link AllocationManager}, with 110 pods on the node (the kubelet default maximum) all
 * bound, annotated and waiting (the worst case for matching: every call scans every pod). Sizes mix 1..8 GiB, so
 * equal-size pods compete (twins) and the oldest wins. Each round re-files the 110 pods (not timed) and answers all
 * of them (timed, one call each). Writes go to a no-op sink: they are asynchronous in production too.
 *
 * <p>Run: {@code java -cp bench/target/...:deps io.mpshare.bench.deviceplugin.AllocateLatency [rounds] [pods]}
 * (bench/README.md). Prints p50, p99, max in microseconds.
 */
public final class AllocateLatency {
    private AllocateLatency() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int podsPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 110;
        var inv = new NodeInventory("n1", List.of(new Gpu(0, "GPU-00000000-0000-0000-0000-000000000000", "NVIDIA H200", 143_771, true),
                new Gpu(1, "GPU-11111111-1111-1111-1111-111111111111", "NVIDIA H200", 143_771, true)));
        Path dir = Files.createTempDirectory("mpshare-bench");
        Path sock = dir.resolve("mem.sock");
        var group = UnixSockets.newGroup(2);
        var handler = new SwitchableHandler(inv);
        // as DevicePluginNode serves it: on the event loop, a worker only for calls that must wait
        var service = new ResourceServer(handler, Executors.newCachedThreadPool());
        var server = UnixSockets.serve(sock, group, service.direct(), service);
        // the client stands in for kubelet (Go): run its callbacks on the event loop, no extra hand-off of ours
        var channel = NettyChannelBuilder
                .forAddress(new DomainSocketAddress(sock.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group).usePlaintext().directExecutor().build();
        var stub = DevicePluginGrpc.newBlockingStub(channel);
        List<Pod> pods = pods(inv, podsPerNode);
        int warmup = Math.max(20, rounds / 5);
        long[] lat = new long[rounds * podsPerNode];
        long[] direct = new long[rounds * podsPerNode];
        long[] cpu = new long[rounds * podsPerNode];
        var threads = ManagementFactory.getThreadMXBean();
        int n = 0, d = 0;
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = 0, cpuTimed = 0;
        for (int r = 0; r < warmup + rounds; r++) {
            var manager = AllocateOverSocket.manager(inv, pods);
            handler.use(new MemoryHandler(inv, MemoryUnit.GIB, HealthState::healthy, manager));
            if (r >= warmup) cpu0 = os.getProcessCpuTime();
            int id = 0;
            for (Pod p : pods) {
                int units = Integer.parseInt(p.getSpec().getContainers().getFirst().getResources().getLimits().get(Names.RESOURCE_GPU_MEM).getAmount());
                var req = ContainerAllocateRequest.newBuilder();
                for (int i = 0; i < units; i++) req.addDevicesIds(DeviceIds.id(booked(inv, p), id++));
                var call = AllocateRequest.newBuilder().addContainerRequests(req).build();
                long t0 = System.nanoTime();
                stub.allocate(call);
                long t = System.nanoTime() - t0;
                if (r >= warmup) lat[n++] = t;
            }
            if (r >= warmup) cpuTimed += os.getProcessCpuTime() - cpu0;
        }
        // the same work without the transport: the handler called in-process
        for (int r = 0; r < warmup + rounds; r++) {
            var manager = AllocateOverSocket.manager(inv, pods);
            var h = new MemoryHandler(inv, MemoryUnit.GIB, HealthState::healthy, manager);
            int id = 0;
            for (Pod p : pods) {
                int units = Integer.parseInt(p.getSpec().getContainers().getFirst().getResources().getLimits().get(Names.RESOURCE_GPU_MEM).getAmount());
                var req = ContainerAllocateRequest.newBuilder();
                for (int i = 0; i < units; i++) req.addDevicesIds(DeviceIds.id(booked(inv, p), id++));
                var call = AllocateRequest.newBuilder().addContainerRequests(req).build();
                long c0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                h.allocate(call);
                long t = System.nanoTime() - t0;
                long c = threads.getCurrentThreadCpuTime() - c0;
                if (r >= warmup) { cpu[d] = c; direct[d++] = t; }
            }
        }
        Arrays.sort(direct, 0, d);
        Arrays.sort(cpu, 0, d);
        System.out.printf("in-process handler only, %d calls: p50 %.0f us, p99 %.0f us, max %.0f us;"
                        + " its thread's CPU time per call (load-independent): p50 %.0f us, p99 %.0f us%n",
                d, direct[d / 2] / 1e3, direct[(int) (d * 0.99)] / 1e3, direct[d - 1] / 1e3, cpu[d / 2] / 1e3, cpu[(int) (d * 0.99)] / 1e3);
        Arrays.sort(lat, 0, n);
        System.out.printf("device plugin Allocate, %d pods on the node, %d calls: p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us;"
                        + " process CPU (client + server + GC) %.0f us per call; load average %.1f%n",
                podsPerNode, n, lat[n / 2] / 1e3, lat[(int) (n * 0.99)] / 1e3, lat[(int) (n * 0.999)] / 1e3, lat[n - 1] / 1e3,
                cpuTimed / 1e3 / n, os.getSystemLoadAverage());
        UnixSockets.shutdown(channel);
        UnixSockets.shutdown(server);
        System.exit(0);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    static List<Pod> pods(NodeInventory inv, int count) { return pods(inv, count, 2); }

    static String booked(NodeInventory inv, Pod p) { return inv.gpu(Integer.parseInt(p.getMetadata().getAnnotations().get(Names.ACK_GPU_MEM_IDX))).uuid(); }

    static int units(Pod p) {
        return Integer.parseInt(p.getSpec().getContainers().getFirst().getResources().getLimits().get(Names.RESOURCE_GPU_MEM).getAmount());
    }

    static List<Pod> pods(NodeInventory inv, int count, int gpus) {
        var out = new ArrayList<Pod>();
        Instant t = Instant.parse("2026-11-30T00:00:00Z");
        var resolver = new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB);
        for (int i = 0; i < count; i++) {
            long units = 1 + (i % 8);
            String uid = UUID.nameUUIDFromBytes(("p" + i).getBytes()).toString();
            Pod pod = new PodBuilder().withNewMetadata().withName("p" + i).withNamespace("default").withUid(uid).endMetadata()
                    .withNewSpec().withNodeName("n1").addToContainers(new ContainerBuilder().withName("main")
                            .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity(Long.toString(units))).endResources().build())
                    .endSpec().withNewStatus().withPhase("Pending").endStatus().build();
            var info = KubePod.of(pod).facts().toPodInfoLenient(MemoryUnit.GIB);
            var demand = ((DemandResolver.Resolution.Resolved) resolver.resolve(info)).demand();
            int g = i % gpus;
            var a = new Allocation(info.key(), uid, "n1", List.of(g), List.of(inv.gpu(g).uuid()), demand, t.plusMillis(i), Phase.BOUND);
            pod.getMetadata().setAnnotations(AllocationCodec.encode(a, MemoryUnit.GIB));
            out.add(pod);
        }
        return out;
    }

    /** Lets one gRPC server serve a fresh manager each round. */
    private static final class SwitchableHandler implements ResourceHandler {
        private final NodeInventory inv;
        private volatile MemoryHandler delegate;

        SwitchableHandler(NodeInventory inv) { this.inv = inv; }

        void use(MemoryHandler h) { delegate = h; }

        @Override public String resourceName() { return Names.RESOURCE_GPU_MEM; }

        @Override public ListAndWatchResponse devices() { return delegate.devices(); }

        @Override public PreferredAllocationResponse preferred(
                PreferredAllocationRequest r) { return delegate.preferred(r); }

        @Override public AllocateResponse allocate(AllocateRequest r) throws AllocateRefused {
            return delegate.allocate(r);
        }

        @Override public AllocateResponse tryAllocate(AllocateRequest r) throws AllocateRefused {
            return delegate.tryAllocate(r);
        }
    }
}
