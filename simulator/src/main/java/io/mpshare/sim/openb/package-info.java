/**
 * Replay of Alibaba's openb GPU traces (cluster-trace-gpu-v2023, USENIX ATC'23 "Beware of Fragmentation")
 * with the paper's method: seeded arrivals without departures until 130% of GPU capacity is asked, the
 * GPU allocation ratio at every 1% of arrived workload. {@link io.mpshare.sim.openb.OpenbTrace} reads the
 * files (bad rows named by line), {@link io.mpshare.sim.openb.Replay} runs one (trace, policy, seed),
 * {@link io.mpshare.sim.openb.Experiment} runs many on several threads, {@link io.mpshare.sim.openb.ReplayReport}
 * prints and draws them. The paper's six policies live here ({@link io.mpshare.sim.openb.PaperPolicies},
 * {@link io.mpshare.sim.openb.PaperFgd}); the paper's trace families (gpushare, multigpu, gpuspec, cpu) are
 * generated in {@code io.mpshare.sim.openb.variants}; mpshare's default is the core's
 * {@link io.mpshare.core.policy.FragmentationPolicy}, driven through the ledger like the extender drives it.
 * See docs/trace-replay.md.
 */
package io.mpshare.sim.openb;
