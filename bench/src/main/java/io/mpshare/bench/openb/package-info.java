/**
 * Measurements at the size of Alibaba's openb cluster: JMH benchmarks of mpshare's default placement
 * (FragmentationPolicy) and the extender's decision, and the research entry points on the openb traces:
 * {@link io.mpshare.bench.openb.FamiliesMain} (mpshare's default against the paper's FGD on every trace family,
 * bench/run-families.sh) and {@link io.mpshare.bench.openb.VariantCsv} (one generated family member as a task file).
 */
package io.mpshare.bench.openb;
