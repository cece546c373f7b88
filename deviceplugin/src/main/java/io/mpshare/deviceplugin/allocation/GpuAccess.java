package io.mpshare.deviceplugin.allocation;

/**
 * How a container reaches the GPUs its grant is for: the device plugin's {@code --device-list-strategy}, applied by
 * {@link AnswerBuilder} to every answer after the MPS env, caps and pipe mount, which it leaves as they are. The
 * strategies beyond the NVIDIA runtime's live in package {@code driver}.
 */
@FunctionalInterface
public interface GpuAccess {
    /** The NVIDIA container runtime adds the GPUs {@code NVIDIA_VISIBLE_DEVICES} names: the grant needs nothing more. */
    GpuAccess NVIDIA_RUNTIME = (grant, gpus) -> grant;

    /** The grant for the GPUs {@code gpus}, with what the container needs to reach them. */
    Grant apply(Grant grant, IdShape gpus);
}
