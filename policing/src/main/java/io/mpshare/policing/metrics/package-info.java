/** Prometheus metrics of the node agent's policer: GPU, pod and container gauges from the last cycle; action counters. */
package io.mpshare.policing.metrics;
