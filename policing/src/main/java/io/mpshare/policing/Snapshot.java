package io.mpshare.policing;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One sample of the node's GPUs, taken by the policer's sampler: what NVML listed per GPU and whom
 * each process belongs to. Immutable; the verdict engine reads nothing else.
 */
public record Snapshot(Instant at, List<GpuSample> gpus) {
    public Snapshot {
        Objects.requireNonNull(at, "at");
        gpus = List.copyOf(gpus);
    }

    /** What the process is to MPS: a client (capped), the server itself, or neither (runs without a cap). */
    public enum Role { MPS_CLIENT, MPS_SERVER, NOT_MPS }

    /**
     * One GPU.
     *
     * @param shared    whether mpshare shares this GPU (only shared GPUs are judged)
     * @param error     "" when sampled; otherwise why NVML could not be read, and the GPU is not judged this cycle
     * @param processes empty for a GPU that is not shared or failed to sample
     */
    public record GpuSample(int index, String uuid, long totalMib, long usedMib, boolean shared, boolean healthy,
                            String error, List<ProcessSample> processes) {
        public GpuSample {
            Objects.requireNonNull(uuid, "uuid");
            error = error == null ? "" : error;
            processes = List.copyOf(processes);
        }

        public boolean sampled() { return error.isEmpty(); }

        public static GpuSample failed(int index, String uuid, boolean shared, boolean healthy, String error) {
            return new GpuSample(index, uuid, 0, 0, shared, healthy, error.isEmpty() ? "unknown error" : error, List.of());
        }

        public long mpsClients() { return processes.stream().filter(p -> p.role() == Role.MPS_CLIENT).count(); }
    }

    /** One process on one GPU, host PID, with NVML's used memory for it on that GPU. */
    public record ProcessSample(long pid, long usedMib, Role role, Optional<Owner> owner) {
        public ProcessSample {
            if (pid <= 0) throw new IllegalArgumentException("pid must be > 0, got " + pid);
            if (usedMib < 0) usedMib = 0; // NVML reports "not available" for some processes; count it as nothing
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(owner, "owner");
        }

        public String podUid() { return owner.map(Owner::podUid).orElse(""); }

        public String container() { return owner.map(Owner::containerName).orElse(""); }
    }
}
