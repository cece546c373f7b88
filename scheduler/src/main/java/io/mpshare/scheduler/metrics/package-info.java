/** Prometheus metrics of the extender: latency per verb, failures by reason, allocated memory per node and GPU. */
package io.mpshare.scheduler.metrics;
