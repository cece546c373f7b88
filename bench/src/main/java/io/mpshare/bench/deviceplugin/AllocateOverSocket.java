package io.mpshare.bench.deviceplugin;

import io.fabric8.kubernetes.api.model.Pod;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AllocateHooks;
import io.mpshare.deviceplugin.allocation.AllocationBook;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.allocation.AnswerBuilder;
import io.mpshare.deviceplugin.allocation.AnswerLog;
import io.mpshare.deviceplugin.allocation.AnswerSink;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.Empty;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.deviceplugin.kubelet.MemoryHandler;
import io.mpshare.deviceplugin.kubelet.ResourceHandler;
import io.mpshare.deviceplugin.kubelet.ResourceServer;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.kube.node.NodeBookings;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

/**
 * Allocate as kubelet drives it, with the server and the load generator in two processes (so each can be pinned to
 * its own CPU with {@code taskset}): for each of 110 waiting pods, GetPreferredAllocation over the node's free IDs
 * (not timed), then Allocate with the IDs it preferred (timed), and in the same loop an empty call
 * ({@code GetDevicePluginOptions}, timed) as the transport's own floor under the same load. Each round the server
 * files the pods afresh (an Allocate with the ID {@value #RESET}). Node: 4 × H200 in GiB units (560 devices);
 * pods of 1–8 GiB on GPU {@code i % 4}, so same-size pods wait on different GPUs.
 *
 * <pre>
 * taskset -c 0 java -cp CP io.mpshare.bench.deviceplugin.AllocateOverSocket serve /tmp/mem.sock 110 &amp;
 * taskset -c 1 java -cp CP io.mpshare.bench.deviceplugin.AllocateOverSocket drive /tmp/mem.sock 100 110
 * </pre>
 */
public final class AllocateOverSocket {
    static final String RESET = "mpshare-bench-reset";

    private AllocateOverSocket() {}

    static NodeInventory inventory() {
        var gpus = new ArrayList<Gpu>();
        for (int i = 0; i < 4; i++) gpus.add(new Gpu(i, "GPU-" + i + "0000000-0000-0000-0000-000000000000", "NVIDIA H200", 143_771, true));
        return new NodeInventory("n1", gpus);
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("serve")) serve(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 110);
        else if (args.length >= 2 && args[0].equals("drive"))
            drive(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 100, args.length > 3 ? Integer.parseInt(args[3]) : 110);
        else System.err.println("usage: AllocateOverSocket serve SOCKET [pods] | drive SOCKET [rounds] [pods]");
    }

    static void serve(Path sock, int pods) throws Exception {
        var inv = inventory();
        List<Pod> list = AllocateLatency.pods(inv, pods, 4);
        var handler = new Resetting(inv, list);
        handler.reset();
        var group = UnixSockets.newGroup(1);
        var service = new ResourceServer(handler, Executors.newCachedThreadPool());
        var server = UnixSockets.serve(sock, group, service.direct(), service);
        System.out.println("serving " + sock + " with " + pods + " waiting pods");
        new CountDownLatch(1).await();
        server.shutdownNow();
    }

    static void drive(Path sock, int rounds, int pods) throws Exception {
        var inv = inventory();
        List<Pod> list = AllocateLatency.pods(inv, pods, 4);
        var group = UnixSockets.newGroup(1);
        var channel = NettyChannelBuilder
                .forAddress(new DomainSocketAddress(sock.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group).usePlaintext().directExecutor().build();
        var stub = DevicePluginGrpc.newBlockingStub(channel);
        int warmup = Math.max(10, rounds / 5);
        long[] alloc = new long[rounds * pods];
        long[] empty = new long[rounds * pods];
        int n = 0;
        for (int r = 0; r < warmup + rounds; r++) {
            stub.allocate(request(List.of(RESET)));
            var free = new LinkedHashSet<String>();
            for (Gpu g : inv.gpus()) for (int i = 0; i < 140; i++) free.add(DeviceIds.id(g.uuid(), i));
            for (Pod p : list) {
                int units = AllocateLatency.units(p);
                var pref = stub.getPreferredAllocation(PreferredAllocationRequest.newBuilder().addContainerRequests(
                        ContainerPreferredAllocationRequest.newBuilder().addAllAvailableDeviceIDs(free).setAllocationSize(units)).build());
                List<String> ids = pref.getContainerResponses(0).getDeviceIDsList();
                ids.forEach(free::remove);
                long t0 = System.nanoTime();
                stub.getDevicePluginOptions(Empty.getDefaultInstance());
                long t1 = System.nanoTime();
                stub.allocate(request(ids));
                long t2 = System.nanoTime();
                if (r >= warmup) {
                    empty[n] = t1 - t0;
                    alloc[n++] = t2 - t1;
                }
            }
        }
        Arrays.sort(alloc, 0, n);
        Arrays.sort(empty, 0, n);
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        System.out.printf("Allocate over gRPC, %d waiting pods, %d calls: p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us%n",
                pods, n, alloc[n / 2] / 1e3, alloc[(int) (n * 0.99)] / 1e3, alloc[(int) (n * 0.999)] / 1e3, alloc[n - 1] / 1e3);
        System.out.printf("baseline, empty GetDevicePluginOptions in the same loop: p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us;"
                        + " load average %.1f%n", empty[n / 2] / 1e3, empty[(int) (n * 0.99)] / 1e3, empty[(int) (n * 0.999)] / 1e3,
                empty[n - 1] / 1e3, load);
        UnixSockets.shutdown(channel);
        System.exit(0);
    }

    /** A fresh manager with {@code pods} filed, as the informer would, and no hooks (nothing reconciles or reads). */
    static AllocationManager manager(NodeInventory inv, List<Pod> pods) {
        var bookings = new NodeBookings("n1", inv, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
        var book = new AllocationBook(bookings, MemoryUnit.GIB, inv, () -> "blue", new AnswerLog(), AnswerSink.NONE);
        bookings.addListener(book);
        for (Pod p : pods) bookings.upserted(p);
        return new AllocationManager(book, new AnswerBuilder(Path.of(Names.RUN_DIR), false, MemoryUnit.GIB), InstantSource.system(),
                AllocationManager.ChangeWaiter.NONE, Duration.ZERO, AllocateHooks.NONE);
    }

    static AllocateRequest request(List<String> ids) {
        return AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids)).build();
    }

    /** The real MemoryHandler over a fresh AllocationManager, re-filed with the pods on each {@value #RESET} call. */
    private static final class Resetting implements ResourceHandler {
        private final NodeInventory inv;
        private final List<Pod> pods;
        private volatile MemoryHandler delegate;

        Resetting(NodeInventory inv, List<Pod> pods) {
            this.inv = inv;
            this.pods = pods;
        }

        void reset() {
            var manager = AllocateOverSocket.manager(inv, pods);
            delegate = new MemoryHandler(inv, MemoryUnit.GIB, HealthState::healthy, manager);
        }

        @Override public String resourceName() { return Names.RESOURCE_GPU_MEM; }

        @Override public ListAndWatchResponse devices() { return delegate.devices(); }

        @Override public PreferredAllocationResponse preferred(PreferredAllocationRequest r) { return delegate.preferred(r); }

        @Override public PreferredAllocationResponse tryPreferred(PreferredAllocationRequest r) { return delegate.tryPreferred(r); }

        @Override public AllocateResponse allocate(AllocateRequest r) throws AllocateRefused { return delegate.allocate(r); }

        @Override public AllocateResponse tryAllocate(AllocateRequest r) throws AllocateRefused {
            if (r.getContainerRequestsCount() == 1 && r.getContainerRequests(0).getDevicesIdsList().equals(List.of(RESET))) {
                reset();
                return AllocateResponse.getDefaultInstance();
            }
            return delegate.tryAllocate(r);
        }
    }
}
