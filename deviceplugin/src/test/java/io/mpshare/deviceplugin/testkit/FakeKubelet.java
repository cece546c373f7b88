package io.mpshare.deviceplugin.testkit;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerDevices;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerResources;
import io.mpshare.deviceplugin.api.podresources.v1.ListPodResourcesRequest;
import io.mpshare.deviceplugin.api.podresources.v1.ListPodResourcesResponse;
import io.mpshare.deviceplugin.api.podresources.v1.PodResources;
import io.mpshare.deviceplugin.api.podresources.v1.PodResourcesListerGrpc;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.Device;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.Empty;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.RegisterRequest;
import io.mpshare.deviceplugin.api.v1beta1.RegistrationGrpc;
import io.mpshare.deviceplugin.kubelet.UnixSockets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A kubelet for tests, over real gRPC on unix sockets: serves {@code Registration} on {@code <dir>/kubelet.sock} and
 * the pod-resources API on its own socket; on each registration dials the plugin and opens ListAndWatch; admits
 * containers as kubelet does (GetPreferredAllocation, then Allocate with the chosen free healthy IDs) and remembers
 * which container holds which IDs for pod-resources {@code List} (one {@code ContainerDevices} entry per ID, as kubelet
 * v1.31 answers). {@link #restart()} deletes every socket in the
 * directory and serves a new {@code kubelet.sock}, as a real kubelet restart does.
 */
public final class FakeKubelet implements AutoCloseable {
    private final Path dir;
    private final Path podResourcesSocket;
    private final EventLoopGroup group = UnixSockets.newGroup(2);
    private final BlockingQueue<RegisterRequest> registrations = new LinkedBlockingQueue<>();
    private final Map<String, Plugin> plugins = new ConcurrentHashMap<>();
    private final Map<PodKey, Map<String, Map<String, List<String>>>> held = new ConcurrentHashMap<>();
    private Server registration;
    private Server podResources;

    private static final class Plugin {
        final ManagedChannel channel;
        final BlockingQueue<ListAndWatchResponse> lists = new LinkedBlockingQueue<>();
        volatile ListAndWatchResponse latest;
        volatile Throwable error;

        Plugin(ManagedChannel channel) { this.channel = channel; }
    }

    public FakeKubelet(Path dir, Path podResourcesSocket) {
        this.dir = dir;
        this.podResourcesSocket = podResourcesSocket;
    }

    public Path socket() { return dir.resolve("kubelet.sock"); }

    public FakeKubelet start() throws IOException {
        Files.createDirectories(dir);
        Files.createDirectories(podResourcesSocket.getParent());
        registration = UnixSockets.serve(socket(), group, new RegistrationGrpc.RegistrationImplBase() {
            @Override public void register(RegisterRequest r, StreamObserver<Empty> out) {
                registrations.add(r);
                // outside the Register call's context, or the stream is cancelled when Register returns
                io.grpc.Context.ROOT.run(() -> connect(r));
                out.onNext(Empty.getDefaultInstance());
                out.onCompleted();
            }
        });
        if (podResources == null) podResources = UnixSockets.serve(podResourcesSocket, group, new PodResourcesListerGrpc.PodResourcesListerImplBase() {
            @Override public void list(ListPodResourcesRequest r, StreamObserver<ListPodResourcesResponse> out) {
                out.onNext(listing());
                out.onCompleted();
            }
        });
        return this;
    }

    private void connect(RegisterRequest r) {
        Plugin old = plugins.remove(r.getResourceName());
        if (old != null) UnixSockets.shutdown(old.channel);
        Plugin p = new Plugin(UnixSockets.dial(dir.resolve(r.getEndpoint()), group));
        plugins.put(r.getResourceName(), p);
        DevicePluginGrpc.newStub(p.channel).listAndWatch(Empty.getDefaultInstance(), new StreamObserver<>() {
            @Override public void onNext(ListAndWatchResponse v) { p.latest = v; p.lists.add(v); }

            @Override public void onError(Throwable t) { p.error = t; }

            @Override public void onCompleted() { }
        });
    }

    /** Kubelet restarts: every socket in the folder is deleted, a new kubelet.sock appears. */
    public void restart() throws IOException {
        UnixSockets.shutdown(registration);
        for (Plugin p : plugins.values()) UnixSockets.shutdown(p.channel);
        plugins.clear();
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) if (f.getFileName().toString().endsWith(".sock")) Files.deleteIfExists(f);
        }
        start();
    }

    public RegisterRequest awaitRegistration(Duration timeout) throws InterruptedException {
        RegisterRequest r = registrations.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (r == null) throw new AssertionError("no registration within " + timeout);
        return r;
    }

    /** Waits for a ListAndWatch message of {@code resource} that satisfies {@code test}. */
    public ListAndWatchResponse awaitList(String resource, Predicate<ListAndWatchResponse> test, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            Plugin p = plugins.get(resource);
            if (p != null) {
                ListAndWatchResponse l = p.latest;
                if (l != null && test.test(l)) return l;
                p.lists.poll(20, TimeUnit.MILLISECONDS);
            } else {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            if (System.nanoTime() > end) {
                Plugin q = plugins.get(resource);
                throw new AssertionError("no matching ListAndWatch for " + resource + " within " + timeout
                        + (q == null ? " (not registered)" : q.latest == null ? " (nothing received" + (q.error == null ? ")" : ", stream failed: " + q.error + ")")
                        : " (last had " + q.latest.getDevicesCount() + " devices)"));
            }
        }
    }

    public ListAndWatchResponse latest(String resource) { return plugins.get(resource).latest; }

    /** Admits one container as kubelet would: preferred allocation over the free healthy IDs, then Allocate. */
    public ContainerAllocateResponse admit(PodKey pod, String container, String resource, int count) {
        Plugin p = plugins.get(resource);
        var free = new ArrayList<String>();
        Set<String> taken = new LinkedHashSet<>();
        held.values().forEach(cs -> cs.values().forEach(rs -> rs.getOrDefault(resource, List.of()).forEach(taken::add)));
        for (Device d : p.latest.getDevicesList()) if (d.getHealth().equals("Healthy") && !taken.contains(d.getID())) free.add(d.getID());
        if (free.size() < count) throw new IllegalStateException("kubelet: requested number of devices unavailable for " + resource);
        var pref = DevicePluginGrpc.newBlockingStub(p.channel).getPreferredAllocation(PreferredAllocationRequest.newBuilder()
                .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder().addAllAvailableDeviceIDs(free).setAllocationSize(count))
                .build());
        List<String> ids = pref.getContainerResponses(0).getDeviceIDsList();
        if (ids.size() != count) ids = free.subList(0, count);
        var resp = allocate(resource, ids);
        held.computeIfAbsent(pod, k -> new LinkedHashMap<>()).computeIfAbsent(container, k -> new LinkedHashMap<>()).put(resource, List.copyOf(ids));
        return resp;
    }

    public ContainerAllocateResponse allocate(String resource, List<String> ids) {
        return DevicePluginGrpc.newBlockingStub(plugins.get(resource).channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .allocate(AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids)).build())
                .getContainerResponses(0);
    }

    public List<String> heldBy(PodKey pod, String container, String resource) {
        return held.getOrDefault(pod, Map.of()).getOrDefault(container, Map.of()).getOrDefault(resource, List.of());
    }

    private ListPodResourcesResponse listing() {
        var b = ListPodResourcesResponse.newBuilder();
        held.forEach((pod, cs) -> {
            var pr = PodResources.newBuilder().setName(pod.name()).setNamespace(pod.namespace());
            cs.forEach((c, rs) -> {
                var cr = ContainerResources.newBuilder().setName(c);
                // as kubelet v1.31 answers: one ContainerDevices entry per device ID
                rs.forEach((res, ids) -> ids.forEach(id -> cr.addDevices(ContainerDevices.newBuilder().setResourceName(res).addDeviceIds(id))));
                pr.addContainers(cr);
            });
            b.addPodResources(pr);
        });
        return b.build();
    }

    @Override public void close() {
        for (Plugin p : plugins.values()) UnixSockets.shutdown(p.channel);
        UnixSockets.shutdown(registration);
        UnixSockets.shutdown(podResources);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
