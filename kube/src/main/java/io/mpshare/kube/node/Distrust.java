package io.mpshare.kube.node;

/** Why {@link NodeBookings} did not count what a pod's annotations say: the {@code reason} label of its counter. */
public enum Distrust {
    /** The annotations cannot be read. */
    MALFORMED("malformed"),
    /** The pod asks no {@code aliyun.com/gpu-mem}: an annotation does not make it a GPU pod. */
    ASKS_NO_GPU_MEM("asks_no_gpu_mem"),
    /** The booking names another node than the one the pod is bound to, or the pod is not bound here. */
    NOT_THIS_NODE("not_this_node"),
    /** {@code reserve=} is outside the context reserve's documented bounds. */
    RESERVE_OUT_OF_BOUNDS("reserve_out_of_bounds"),
    /** The pod's own resources are not a request mpshare can place. */
    INVALID_REQUEST("invalid_request"),
    /** The annotation's demand (charge, containers, GPU count) is not what the pod's resources ask. */
    DISAGREES_WITH_RESOURCES("disagrees_with_resources");

    private final String label;

    Distrust(String label) { this.label = label; }

    public String label() { return label; }
}
