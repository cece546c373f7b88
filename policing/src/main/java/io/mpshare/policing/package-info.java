/**
 * The per-pod GPU memory policer: MPS caps one process, and a process can raise its own cap up to the
 * server's ceiling; the policer makes the caps hold per pod. {@link io.mpshare.policing.Policer} runs
 * sample → judge → act each period; the judging ({@code VerdictEngine}) and the choice of actions
 * ({@code ActionPlanner}) are pure. Everything outside the node's GPUs is an interface the device plugin
 * (Kubernetes) or host mode implements: {@link io.mpshare.policing.NodeView},
 * {@link io.mpshare.policing.PidOwners}, {@link io.mpshare.policing.EventSink},
 * {@link io.mpshare.policing.Evictor}, {@link io.mpshare.policing.UsageSink},
 * {@link io.mpshare.policing.ProcessKiller}, {@link io.mpshare.policing.MpsDaemons}, and
 * {@link io.mpshare.policing.MpsServers}: the supervisors' reports by which the MPS server is known (its PID, never
 * its name).
 */
package io.mpshare.policing;
