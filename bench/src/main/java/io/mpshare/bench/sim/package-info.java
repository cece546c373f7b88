/** Benchmark of {@code mpshare simulate} at its target scale (100k pods, 1,000 nodes x 8 GPUs). */
package io.mpshare.bench.sim;
