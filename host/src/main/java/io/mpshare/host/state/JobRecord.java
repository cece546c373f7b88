package io.mpshare.host.state;

import io.mpshare.core.isolation.MpsLimits;

import java.util.List;
import java.util.Objects;

/**
 * One job of the host, as written to the state file.
 *
 * @param id        the job's key: the ledger's pod UID and the policer's owner key
 * @param pid       the process the host watches: the {@code mpshare run} client until it reports its command's PID, then the command
 * @param pidStart  that process's start time in clock ticks since boot ({@code /proc/<pid>/stat} field 22), so a reused PID is never taken for it
 * @param memMib    what the user asked, over all GPUs, without reserves
 * @param core      SM share asked on each GPU (0 = not asked)
 * @param reserveMib CUDA context reserve added to each per-GPU cap
 * @param started   true once {@code pid} is the command itself (not the {@code mpshare run} client)
 */
public record JobRecord(String id, long pid, long pidStart, List<Integer> gpuIndices, List<String> gpuUuids,
                        long memMib, int core, long reserveMib, String user, List<String> command, long createdAtMillis,
                        boolean started) {
    public JobRecord {
        Objects.requireNonNull(id, "id");
        gpuIndices = List.copyOf(gpuIndices);
        gpuUuids = List.copyOf(gpuUuids);
        user = user == null ? "" : user;
        command = command == null ? List.of() : List.copyOf(command);
        if (gpuIndices.isEmpty() || gpuIndices.size() != gpuUuids.size()) throw new IllegalArgumentException("job " + id + ": GPUs missing or mismatched");
    }

    public int gpuCount() { return gpuIndices.size(); }

    /** The memory cap each of the job's processes gets on each of its GPUs: its share plus the context reserve. */
    public long capMibPerGpu() { return MpsLimits.clientCapMib(memMib / gpuCount(), reserveMib); }

    public JobRecord watching(long newPid, long newStart) {
        return new JobRecord(id, newPid, newStart, gpuIndices, gpuUuids, memMib, core, reserveMib, user, command, createdAtMillis, true);
    }
}
