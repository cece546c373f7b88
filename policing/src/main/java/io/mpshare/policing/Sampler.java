package io.mpshare.policing;

import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;
import io.mpshare.policing.Snapshot.GpuSample;
import io.mpshare.policing.Snapshot.ProcessSample;
import io.mpshare.policing.Snapshot.Role;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Takes a {@link Snapshot}: per GPU, NVML's compute processes and MPS clients with used memory, each
 * process's role and owner. A non-client is the MPS server only when {@link ServerIdentity} recognises it from the
 * supervisors' reports, read once per sample; every other non-client is {@code NOT_MPS}, whatever its name.
 *
 * <p>Order matters: compute processes are read before MPS clients, so a client that starts between the
 * two reads can show in the client list alone, never in the compute list alone, so it cannot look like a
 * non-client. (A non-client is also read again just before it is killed.) A GPU where either
 * read fails is marked failed and not judged. A client's used memory is taken from the MPS list (per-client
 * accounting), other processes' from the compute list.
 */
final class Sampler {
    private final Nvml nvml;
    private final PidOwners owners;
    private final MpsServers servers;
    private final ServerIdentity identity;

    Sampler(Nvml nvml, PidOwners owners, MpsServers servers, ServerIdentity identity) {
        this.nvml = nvml;
        this.owners = owners;
        this.servers = servers;
        this.identity = identity;
    }

    /** Throws when a supervisor's report cannot be read: a cycle that cannot tell the server judges nothing. */
    Snapshot sample(Instant at, NodeView view) {
        ServerIdentity.Recognised known = identity.recognise(servers.reports());
        int count = nvml.deviceCount();
        List<GpuSample> gpus = new ArrayList<>(count);
        for (int i = 0; i < count; i++) gpus.add(gpu(i, view.shared(i), view.healthy(i), known));
        return new Snapshot(at, gpus);
    }

    private GpuSample gpu(int index, boolean shared, boolean healthy, ServerIdentity.Recognised known) {
        Nvml.DeviceInfo info;
        try {
            info = nvml.device(index);
        } catch (NvmlException e) {
            return GpuSample.failed(index, "", shared, healthy, String.valueOf(e.getMessage()));
        }
        if (!shared) return new GpuSample(index, info.uuid(), info.totalMib(), info.usedMib(), false, healthy, "", List.of());
        List<Nvml.GpuProcess> compute, clients;
        try {
            compute = nvml.computeProcesses(index);
            clients = nvml.mpsClients(index);
        } catch (NvmlException e) {
            return GpuSample.failed(index, info.uuid(), true, healthy, String.valueOf(e.getMessage()));
        }
        Map<Long, Long> clientMib = new LinkedHashMap<>();
        for (var c : clients) clientMib.merge(c.pid(), c.usedMib(), Math::max);
        Map<Long, Long> all = new LinkedHashMap<>();
        for (var p : compute) all.merge(p.pid(), p.usedMib(), Math::max);
        clientMib.forEach(all::put);
        List<ProcessSample> ps = new ArrayList<>(all.size());
        all.forEach((pid, mib) -> ps.add(process(pid, mib, clientMib.containsKey(pid), known)));
        return new GpuSample(index, info.uuid(), info.totalMib(), info.usedMib(), true, healthy, "", ps);
    }

    private ProcessSample process(long pid, long mib, boolean client, ServerIdentity.Recognised known) {
        if (!client && known.isServer(pid)) return new ProcessSample(pid, mib, Role.MPS_SERVER, Optional.empty());
        return new ProcessSample(pid, mib, client ? Role.MPS_CLIENT : Role.NOT_MPS, owners.ownerOf(pid));
    }

    /** Only the MPS clients of one GPU, read again just before a non-client is killed (see {@code Enforcer}). */
    boolean isMpsClientNow(int gpu, long pid) {
        try {
            return nvml.mpsClients(gpu).stream().anyMatch(c -> c.pid() == pid);
        } catch (NvmlException e) {
            return true; // cannot tell: do not kill on doubt
        }
    }

    /** The MPS clients of every shared GPU now, with their owners (for {@code endPod}). */
    List<ProcessSample> clientsNow(NodeView view) {
        List<ProcessSample> out = new ArrayList<>();
        int count = nvml.deviceCount();
        for (int i = 0; i < count; i++) {
            if (!view.shared(i)) continue;
            try {
                for (var c : nvml.mpsClients(i)) out.add(new ProcessSample(c.pid(), c.usedMib(), Role.MPS_CLIENT, owners.ownerOf(c.pid())));
            } catch (NvmlException e) {
                // a GPU that cannot be read has no client to end from here; the kubelet's stop still ends them
            }
        }
        return out;
    }
}
