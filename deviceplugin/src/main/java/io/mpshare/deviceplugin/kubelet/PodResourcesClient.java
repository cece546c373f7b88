package io.mpshare.deviceplugin.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerDevices;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerResources;
import io.mpshare.deviceplugin.api.podresources.v1.ListPodResourcesRequest;
import io.mpshare.deviceplugin.api.podresources.v1.PodResources;
import io.mpshare.deviceplugin.api.podresources.v1.PodResourcesListerGrpc;
import io.mpshare.core.model.PodKey;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reads the kubelet pod-resources API: which device IDs of one resource each container holds. */
public final class PodResourcesClient implements AutoCloseable {
    private final ManagedChannel channel;

    public PodResourcesClient(Path socket, EventLoopGroup group) { this.channel = UnixSockets.dial(socket, group); }

    /** One container's devices of a resource, as kubelet recorded them. */
    public record Holding(PodKey pod, String container, List<String> deviceIds) {}

    public List<Holding> list(String resource) {
        var resp = PodResourcesListerGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                .list(ListPodResourcesRequest.getDefaultInstance());
        var out = new ArrayList<Holding>();
        for (PodResources p : resp.getPodResourcesList()) {
            for (ContainerResources c : p.getContainersList()) {
                for (ContainerDevices d : c.getDevicesList()) {
                    if (d.getResourceName().equals(resource) && d.getDeviceIdsCount() > 0)
                        out.add(new Holding(PodKey.of(p.getNamespace(), p.getName()), c.getName(), List.copyOf(d.getDeviceIdsList())));
                }
            }
        }
        return out;
    }

    @Override public void close() { UnixSockets.shutdown(channel); }
}
