/**
 * The paper's trace families (gpushareX, multigpuX, gpuspecX, cpuXXX) generated from the default openb
 * trace, seeded, the way Alibaba's published files were made ({@link io.mpshare.sim.openb.variants.TraceVariants}),
 * and the statistics that define a family ({@link io.mpshare.sim.openb.variants.TaskShapes}). The harness that holds
 * mpshare's default to the paper's FGD on every family is a research entry point in {@code bench}
 * ({@code io.mpshare.bench.openb.FamiliesMain}). See docs/trace-replay.md, "Trace families".
 */
package io.mpshare.sim.openb.variants;
