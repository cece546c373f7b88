/**
 * Self-contained SVG charts (no JavaScript, no libraries) for HTML reports: {@link io.mpshare.sim.report.svg.LineChart}
 * and {@link io.mpshare.sim.report.svg.BarChart}. Reusable by any report of the simulator (the openb replay too).
 */
package io.mpshare.sim.report.svg;
