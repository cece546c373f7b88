/**
 * Workloads for the simulator: the built-in {@link io.mpshare.sim.workload.DefaultWorkload} mix and
 * {@link io.mpshare.sim.workload.TraceReader} for CSV traces. A workload is a list of
 * {@link io.mpshare.sim.workload.SimPod}s sorted by arrival.
 */
package io.mpshare.sim.workload;
