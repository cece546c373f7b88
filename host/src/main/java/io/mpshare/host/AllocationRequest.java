package io.mpshare.host;

import java.util.List;

/**
 * What {@code mpshare run} asks: GPU memory in MiB over all {@code gpuCount} GPUs (split evenly, as
 * {@code aliyun.com/gpu-count} does), an SM share per GPU (0 = not asked), and the PID that holds the job until
 * its command starts (the client itself).
 */
public record AllocationRequest(long memMib, int core, int gpuCount, long pid, String user, List<String> command) {
    public AllocationRequest {
        user = user == null ? "" : user;
        command = command == null ? List.of() : List.copyOf(command);
    }
}
