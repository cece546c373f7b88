/**
 * Host PID → pod and container, from a {@code /proc} tree: {@link io.mpshare.policing.proc.CgroupParser}
 * knows the cgroup layouts of containerd, CRI-O and Docker under the systemd and cgroupfs drivers,
 * cgroup v1 and v2; {@link io.mpshare.policing.proc.CgroupPidOwners} is the Kubernetes mode's
 * {@link io.mpshare.policing.PidOwners}.
 */
package io.mpshare.policing.proc;
