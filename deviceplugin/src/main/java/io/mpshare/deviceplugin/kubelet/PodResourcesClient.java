package io.mpshare.deviceplugin.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerDevices;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerResources;
import io.mpshare.deviceplugin.api.podresources.v1.ListPodResourcesRequest;
import io.mpshare.deviceplugin.api.podresources.v1.PodResources;
import io.mpshare.deviceplugin.api.podresources.v1.PodResourcesListerGrpc;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.PodResources.Holding;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads the kubelet pod-resources API: which device IDs of one resource each container holds. A real kubelet (v1.31)
 * answers one {@code ContainerDevices} entry <b>per device ID</b> (7 entries for a 7-unit container); emulators give
 * one entry with all IDs. Entries are therefore grouped per pod, container and resource before anyone reads them.
 */
public final class PodResourcesClient implements AutoCloseable {
    private final ManagedChannel channel;

    private final Path socket;

    public PodResourcesClient(Path socket, EventLoopGroup group) {
        this.socket = socket;
        this.channel = UnixSockets.dial(socket, group);
    }

    /** @throws UncheckedIOException when kubelet does not answer (not running, or another socket): an expected state, no bug */
    public List<Holding> list(String resource) {
        try {
            var resp = PodResourcesListerGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
            return holdings(resp.getPodResourcesList(), resource);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) throw e;
            String why = "kubelet's pod-resources API at " + socket + " does not answer (" + e.getMessage()
                    + "): is kubelet running, and is this its socket (--pod-resources-socket)?";
            throw new UncheckedIOException(why, new IOException(why, e));
        }
    }

    /** One {@link Holding} per pod and container that holds IDs of {@code resource}, every entry's IDs merged, first-seen order. */
    public static List<Holding> holdings(List<PodResources> pods, String resource) {
        var out = new ArrayList<Holding>();
        for (PodResources p : pods) {
            var byContainer = new LinkedHashMap<String, LinkedHashSet<String>>();
            for (ContainerResources c : p.getContainersList()) {
                for (ContainerDevices d : c.getDevicesList()) {
                    if (d.getResourceName().equals(resource) && d.getDeviceIdsCount() > 0)
                        byContainer.computeIfAbsent(c.getName(), k -> new LinkedHashSet<>()).addAll(d.getDeviceIdsList());
                }
            }
            PodKey key = PodKey.of(p.getNamespace(), p.getName());
            byContainer.forEach((c, ids) -> out.add(new Holding(key, c, List.copyOf(ids))));
        }
        return out;
    }

    @Override public void close() { UnixSockets.shutdown(channel); }
}
