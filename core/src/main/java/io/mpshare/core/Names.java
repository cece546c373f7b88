package io.mpshare.core;

import java.util.List;

/**
 * Every resource name, label, annotation key, port and path mpshare uses, defined once.
 * Adapters reference these constants; a second copy of any of them elsewhere is a bug.
 */
public final class Names {
    private Names() {}

    /** Extended resource: GPU memory, in GiB by default ({@link MemoryUnit}). */
    public static final String RESOURCE_GPU_MEM = "aliyun.com/gpu-mem";
    /** Extended resource: share of one GPU's SMs, 0-100. */
    public static final String RESOURCE_GPU_CORE = "aliyun.com/gpu-core.percentage";
    /** Kubernetes' host resources, as pods request them and nodes publish them in {@code status.allocatable}. */
    public static final String RESOURCE_CPU = "cpu", RESOURCE_MEMORY = "memory";
    /** Pod label: spread each container's request evenly over N GPUs of one node. */
    public static final String LABEL_GPU_COUNT = "aliyun.com/gpu-count";
    /** The most GPUs one pod may spread over with {@link #LABEL_GPU_COUNT}. */
    public static final int MAX_GPU_COUNT = 64;
    /** Node label that makes a node take part; the DaemonSets select it. */
    public static final String NODE_LABEL_SCHEDULE = "ack.node.gpu.schedule";
    public static final String NODE_LABEL_SCHEDULE_MPS = "mps";
    /** Label of the MPS control daemon pods, as the seed's {@code kubectl get po -l} expects. */
    public static final String MPS_DAEMON_POD_LABEL = "app.aliyun.com/name";
    public static final String MPS_DAEMON_POD_LABEL_VALUE = "mps-control-daemon";

    public static final String ANNOTATION_PREFIX = "mpshare.io/";
    /** Pod: the allocation chosen at bind ({@code codec.AllocationCodec}). */
    public static final String ANN_ALLOCATION = ANNOTATION_PREFIX + "allocation";
    /** Pod: when the extender assumed the allocation (RFC 3339). */
    public static final String ANN_ASSUME_TIME = ANNOTATION_PREFIX + "assume-time";
    /** Pod: "true" once the device plugin answered Allocate for it. */
    public static final String ANN_ASSIGNED = ANNOTATION_PREFIX + "assigned";
    /** Pod: per-container GPU usage as last seen by the node's policer. */
    public static final String ANN_USAGE = ANNOTATION_PREFIX + "usage";
    /** Node: GPU inventory published by the device plugin ({@code codec.InventoryCodec}). */
    public static final String ANN_NODE_GPUS = ANNOTATION_PREFIX + "gpus";
    /** Node: when the inventory was last published (RFC 3339). */
    public static final String ANN_NODE_GPUS_TIME = ANNOTATION_PREFIX + "gpus-time";
    /** Node: the MPS daemon colour (generation) that receives new clients: blue or green. */
    public static final String ANN_NODE_MPS_ACTIVE = ANNOTATION_PREFIX + "mps-active";
    /** Node: progress of {@code mpshare upgrade-node} on this node, so an interrupted run resumes (upgrade module). */
    public static final String ANN_NODE_UPGRADE = ANNOTATION_PREFIX + "upgrade-state";
    /** Pod: the MPS daemon colour(s) its containers were given at Allocate ({@code blue}, {@code green}, or both comma-separated). */
    public static final String ANN_MPS_COLOUR = ANNOTATION_PREFIX + "mps-colour";
    /** Label of each MPS control daemon pod and DaemonSet: its colour (the chart's {@code mpshare.io/colour}). */
    public static final String LABEL_MPS_COLOUR = ANNOTATION_PREFIX + "colour";
    /** The two MPS daemon colours (generations); {@link #MPS_COLOUR_DEFAULT} is active where a node names none. */
    public static final String MPS_COLOUR_BLUE = "blue";
    public static final String MPS_COLOUR_GREEN = "green";
    public static final String MPS_COLOUR_DEFAULT = MPS_COLOUR_BLUE;

    /** ACK gpushare v1 annotations, read so that pods placed by gpushare are accounted; all begin {@link #ACK_ANNOTATION_PREFIX}. */
    public static final String ACK_ANNOTATION_PREFIX = "ALIYUN_COM_GPU_MEM_";
    public static final String ACK_GPU_MEM_IDX = ACK_ANNOTATION_PREFIX + "IDX";
    public static final String ACK_GPU_MEM_POD = ACK_ANNOTATION_PREFIX + "POD";
    public static final String ACK_GPU_MEM_DEV = ACK_ANNOTATION_PREFIX + "DEV";
    public static final String ACK_GPU_MEM_ASSIGNED = ACK_ANNOTATION_PREFIX + "ASSIGNED";
    public static final String ACK_GPU_MEM_ASSUME_TIME = ACK_ANNOTATION_PREFIX + "ASSUME_TIME";

    public static final int EXTENDER_PORT = 39999;
    public static final String EXTENDER_PREFIX = "/mpshare-scheduler";
    /** The extender's verbs, under {@link #EXTENDER_PREFIX}: kube-scheduler's {@code filterVerb}, {@code prioritizeVerb}, {@code bindVerb}. */
    public static final String EXTENDER_VERB_FILTER = "filter", EXTENDER_VERB_PRIORITIZE = "prioritize", EXTENDER_VERB_BIND = "bind";
    /** The extender's preempt verb (kube-scheduler's {@code preemptVerb}), under {@link #EXTENDER_PREFIX}. */
    public static final String EXTENDER_VERB_PREEMPT = "preempt";

    /** Host folder for MPS pipe and log directories: {@code /run/mpshare/<colour>/pipe}. */
    public static final String RUN_DIR = "/run/mpshare";
    /**
     * File name of each colour's supervisor API socket: {@code /run/mpshare/<colour>/supervisor.sock}, beside (not in)
     * the pipe directory client containers mount; mode 0600. The device plugin sets ceilings and reads health there.
     */
    public static final String SUPERVISOR_SOCKET = "supervisor.sock";
    /** The kubelet's folder: device plugin and pod-resources sockets, every pod's volumes. */
    public static final String KUBELET_DIR = "/var/lib/kubelet";
    public static final String DEVICE_PLUGIN_DIR = KUBELET_DIR + "/device-plugins";
    public static final String KUBELET_SOCKET = DEVICE_PLUGIN_DIR + "/kubelet.sock";
    /** The command-line flag that picks the unit of {@link #RESOURCE_GPU_MEM} (GiB or MiB), named in messages. */
    public static final String FLAG_GPU_MEM_UNIT = "--gpu-mem-unit";
    /**
     * Node label the device plugin sets to its count of healthy GPUs. kube-scheduler requeues pods on a Node label
     * change, not on an annotation change: so pods refused while the devices were unhealthy are retried at recovery.
     */
    public static final String NODE_LABEL_HEALTHY_GPUS = ANNOTATION_PREFIX + "healthy-gpus";
    public static final String POD_RESOURCES_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";

    /** Container env the device plugin answers with. */
    public static final String ENV_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
    public static final String ENV_MPS_PIPE = "CUDA_MPS_PIPE_DIRECTORY";
    public static final String ENV_MPS_MEM_LIMIT = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";
    public static final String ENV_MPS_THREADS = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
    /** Prefix of every MPS client variable; users may not set these in shared-GPU pods (the device plugin does). */
    public static final String ENV_MPS_PREFIX = "CUDA_MPS_";
    /** The NVIDIA container toolkit's variables: the GPUs, driver capabilities and MIG devices a container gets. */
    public static final String ENV_NVIDIA_PREFIX = "NVIDIA_";
    /**
     * Name families of the variables the NVIDIA toolkit reads and the device plugin's answer sets ({@code NVIDIA_*},
     * {@code CUDA_MPS_*} and the rest of {@code CUDA_*}, ACK's {@code ALIYUN_COM_GPU_MEM_*}): a container's own env
     * wins over the device plugin's, so an {@code envFrom} source of a shared-GPU pod must not be able to spell them.
     */
    public static final List<String> ENV_GPU_FAMILIES = List.of(ENV_NVIDIA_PREFIX, "CUDA_", "ALIYUN_");
    /**
     * Where the NVIDIA container toolkit looks for a container's GPU list under its volume-mounts strategy
     * ({@code accept-nvidia-visible-devices-as-volume-mounts}): a mount named {@code all} or a GPU UUID there hands the
     * container those GPUs. Written normalised ({@code /var/run} read as {@code /run}).
     */
    public static final String NVIDIA_DEVICE_LIST_DIR = "/run/nvidia-container-devices";
    /** Pod annotations a CDI-enabled container runtime may read as device requests ({@code cdi.k8s.io/x: nvidia.com/gpu=all}). */
    public static final String CDI_ANNOTATION_PREFIX = "cdi.k8s.io/";
    /**
     * Namespace label: {@code trusted} admits root and host namespaces in shared-GPU pods (with a warning),
     * {@code strict} refuses them; the chart's {@code tenancy.default} says which applies to unlabelled namespaces.
     */
    public static final String LABEL_TENANCY = ANNOTATION_PREFIX + "tenancy";
    public static final String TENANCY_TRUSTED = "trusted";
    public static final String TENANCY_STRICT = "strict";
    /**
     * Namespace annotation, set by the cluster admin (the same trust as {@link #LABEL_TENANCY}): the one non-root UID
     * the namespace's shared-GPU pods run as, and that no other namespace's may. MPS lets a client terminate any other
     * client of its UID, so the UID is the tenant boundary (docs/decisions/tenant-isolation.md).
     */
    public static final String ANN_CLIENT_UID = ANNOTATION_PREFIX + "client-uid";
    /** An init container's {@code restartPolicy} that makes it a native sidecar (runs beside the app containers). */
    public static final String RESTART_POLICY_ALWAYS = "Always";
    /** The kube-scheduler profile name pods are steered to when they ask for shared GPUs. */
    public static final String SCHEDULER_NAME = "mpshare-scheduler";

    /**
     * Default CUDA context reserve charged per client per GPU, and added to its MPS cap. FACTS.md: the context counts
     * against the cap, and a PyTorch 2.11 client holds ~632 MiB beyond its tensors on the H200 (driver 580); with 512
     * jobs that asked N GiB held N-0.1 GiB and failed their next 20 MiB. 1024 leaves ~390 MiB above that client for
     * allocator slack and cuBLAS/cuDNN workspaces (e2e/gpu/calibrate-reserve.sh measures it). A pod may ask another with
     * {@link #ANN_CONTEXT_RESERVE}.
     */
    public static final long DEFAULT_CONTEXT_RESERVE_MIB = 1024;
    /** Placement policy names, as {@code mpshare scheduler-extender --policy} and {@code mpshare simulate --policies} take them. */
    public static final String POLICY_FRAGMENTATION = "fragmentation", POLICY_BINPACK = "binpack", POLICY_SPREAD = "spread";
    /**
     * The placement policy the scheduler extender runs when {@code --policy} is not given (fragmentation gradient
     * descent over a learned task mix, docs/extender.md); {@code mpshare simulate} names it in its report.
     */
    public static final String DEFAULT_PLACEMENT_POLICY = POLICY_FRAGMENTATION;
    /**
     * Pod annotation: this pod's CUDA context reserve in MiB per container per GPU, instead of the cluster's default
     * (a framework that holds more beside its tensors). Booked by the extender, capped by the device plugin alike.
     */
    public static final String ANN_CONTEXT_RESERVE = ANNOTATION_PREFIX + "context-reserve-mib";
    /** Bounds of {@link #ANN_CONTEXT_RESERVE}: below the smallest CUDA context nothing starts; above, ask more gpu-mem instead. */
    public static final long MIN_CONTEXT_RESERVE_MIB = 256;
    public static final long MAX_CONTEXT_RESERVE_MIB = 8192;
}
