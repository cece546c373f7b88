package io.mpshare.core.validation;

/**
 * How far the pods of a namespace are trusted with the node's MPS daemon (docs/decisions/tenant-isolation.md).
 * The webhook learns it from the path kube-apiserver calls, which the webhook configuration chooses by the
 * namespace's {@link io.mpshare.core.Names#LABEL_TENANCY} label.
 */
public enum Tenancy {
    /**
     * The default: shared-GPU pods run as a non-root UID without privilege escalation and without the host's PID,
     * IPC or network namespace. MPS takes {@code quit}, {@code set_*} and {@code terminate_client} only from root or
     * the daemon's UID, so such a pod cannot command the daemon through the pipe directory it is given.
     */
    STRICT,
    /**
     * Root and host namespaces are admitted with a warning that names the risk (the seed's sample runs unchanged):
     * for single-tenant clusters, or namespaces whose every pod author may stop the node's daemon.
     */
    TRUSTED
}
