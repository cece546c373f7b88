/**
 * {@code mpshare inspect} / {@code kubectl mpshare inspect}: who uses which GPU, allocated vs used.
 * {@link io.mpshare.inspect.GpuReport} is the pure model built from core values, {@link io.mpshare.inspect.ReportRenderer}
 * prints it as a table or JSON, and {@link io.mpshare.inspect.ClusterReader} is the only class that talks to the API server.
 */
package io.mpshare.inspect;
