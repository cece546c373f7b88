/**
 * Reports of a simulation: the stdout summary ({@link io.mpshare.sim.report.TextReport}), the HTML page
 * ({@link io.mpshare.sim.report.HtmlReport}), and the building blocks other reports can reuse
 * ({@link io.mpshare.sim.report.Html}, {@link io.mpshare.sim.report.Fmt}, the {@code svg} charts).
 */
package io.mpshare.sim.report;
