/** JMH benchmarks of mpshare's default placement (FragmentationPolicy) at the size of Alibaba's openb cluster. */
package io.mpshare.bench.openb;
