/**
 * JMH benchmarks of the scheduling core. Run with {@code bench/run-jmh.sh}; never part of the test suite.
 * {@link io.mpshare.bench.FilterBenchmark} measures the extender's filter and prioritize over large clusters.
 */
package io.mpshare.bench;
