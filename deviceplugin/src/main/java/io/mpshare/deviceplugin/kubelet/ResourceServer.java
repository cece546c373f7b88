package io.mpshare.deviceplugin.kubelet;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginOptions;
import io.mpshare.deviceplugin.api.v1beta1.Empty;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreStartContainerRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreStartContainerResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;

import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The device plugin API for one resource: a thin adapter over a {@link ResourceHandler}. Keeps every open
 * ListAndWatch stream and resends the whole list on {@link #publish()} (health change). Sends on one stream are
 * serialised on that stream.
 */
public final class ResourceServer extends DevicePluginGrpc.DevicePluginImplBase {
    private static final Logger LOG = Logger.getLogger(ResourceServer.class.getName());

    private final ResourceHandler handler;
    private final Executor slow;
    private final boolean direct;
    private final Set<ServerCallStreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();

    /** Every call runs on the caller's thread (serve with gRPC's default executor). */
    public ResourceServer(ResourceHandler handler) {
        this.handler = handler;
        this.slow = Runnable::run;
        this.direct = false;
    }

    /**
     * For a server built with {@code directExecutor()}: calls run on the event loop, and an Allocate that cannot be
     * answered at once ({@link ResourceHandler#tryAllocate} null: it may wait for the pod informer) moves to {@code slow}.
     */
    public ResourceServer(ResourceHandler handler, Executor slow) {
        this.handler = handler;
        this.slow = slow;
        this.direct = true;
    }

    /** Whether this service may be served on the event loop ({@code directExecutor()}). */
    public boolean direct() { return direct; }

    public ResourceHandler handler() { return handler; }

    public static DevicePluginOptions options() {
        return DevicePluginOptions.newBuilder().setPreStartRequired(false).setGetPreferredAllocationAvailable(true).build();
    }

    @Override public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
        out.onNext(options());
        out.onCompleted();
    }

    @Override public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
        var stream = (ServerCallStreamObserver<ListAndWatchResponse>) out;
        stream.setOnCancelHandler(() -> watchers.remove(stream));
        watchers.add(stream);
        send(stream, handler.devices());
    }

    /** Sends the current list to every open ListAndWatch stream. */
    public void publish() {
        if (watchers.isEmpty()) return;
        ListAndWatchResponse list = handler.devices();
        for (var w : watchers) send(w, list);
    }

    public int watchers() { return watchers.size(); }

    /** Ends the open streams (server shutdown). */
    public void closeStreams() {
        for (var w : watchers) {
            synchronized (w) { try { w.onCompleted(); } catch (RuntimeException ignored) { } }
        }
        watchers.clear();
    }

    private void send(ServerCallStreamObserver<ListAndWatchResponse> w, ListAndWatchResponse list) {
        synchronized (w) {
            if (w.isCancelled()) { watchers.remove(w); return; }
            try { w.onNext(list); } catch (RuntimeException e) {
                watchers.remove(w);
                LOG.log(Level.FINE, "ListAndWatch stream closed", e);
            }
        }
    }

    @Override public void getPreferredAllocation(PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
        PreferredAllocationResponse fast;
        try {
            fast = handler.tryPreferred(request);
        } catch (RuntimeException e) {
            preferredFailed(out, e);
            return;
        }
        if (fast != null) {
            out.onNext(fast);
            out.onCompleted();
            return;
        }
        slow.execute(() -> {
            try {
                out.onNext(handler.preferred(request));
                out.onCompleted();
            } catch (RuntimeException e) {
                preferredFailed(out, e);
            }
        });
    }

    private void preferredFailed(StreamObserver<PreferredAllocationResponse> out, RuntimeException e) {
        LOG.log(Level.WARNING, handler.resourceName() + ": GetPreferredAllocation failed", e);
        out.onError(Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
    }

    @Override public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        AllocateResponse fast;
        try {
            fast = handler.tryAllocate(request);
        } catch (ResourceHandler.AllocateRefused e) {
            refused(out, e);
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, handler.resourceName() + ": Allocate failed", e);
            out.onError(Status.INTERNAL.withDescription("mpshare device plugin: " + e).asRuntimeException());
            return;
        }
        if (fast != null) {
            out.onNext(fast);
            out.onCompleted();
            return;
        }
        slow.execute(() -> allocateSlow(request, out));
    }

    private void refused(StreamObserver<AllocateResponse> out, ResourceHandler.AllocateRefused e) {
        LOG.warning(handler.resourceName() + ": Allocate refused: " + e.getMessage());
        out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
    }

    private void allocateSlow(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        try {
            out.onNext(handler.allocate(request));
            out.onCompleted();
        } catch (ResourceHandler.AllocateRefused e) {
            refused(out, e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, handler.resourceName() + ": Allocate failed", e);
            out.onError(Status.INTERNAL.withDescription("mpshare device plugin: " + e).asRuntimeException());
        }
    }

    @Override public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        out.onNext(PreStartContainerResponse.getDefaultInstance());
        out.onCompleted();
    }
}
