/**
 * The ways of handing out GPUs that a simulation compares: mpshare's core policies
 * ({@link io.mpshare.sim.model.MpshareModel}) and two baselines that run on the same ledger, NVIDIA's
 * equal fixed slices ({@link io.mpshare.sim.model.SlicePolicy}) and one whole GPU per pod
 * ({@link io.mpshare.sim.model.WholeGpuPolicy}).
 */
package io.mpshare.sim.model;
