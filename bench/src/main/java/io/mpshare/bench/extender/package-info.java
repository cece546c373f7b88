/**
 * Load generator for the scheduler extender's filter verb, measured against a bare JDK HTTP server that
 * only reads the same request and answers the same bytes (the floor). Run with bench/run-extender-load.sh.
 */
package io.mpshare.bench.extender;
