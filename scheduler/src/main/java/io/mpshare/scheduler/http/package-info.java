/**
 * The kube-scheduler extender wire protocol over HTTP: {@link io.mpshare.scheduler.http.WireReader} pulls
 * only the needed fields out of {@code ExtenderArgs} / {@code ExtenderBindingArgs} with Jackson's streaming
 * parser, {@link io.mpshare.scheduler.http.WireWriter} writes the replies with the Go field names,
 * {@link io.mpshare.scheduler.http.PreemptWire} does both for the preempt verb, and
 * {@link io.mpshare.scheduler.http.ExtenderHttpServer} routes the verbs. Every verb answers 200; failures
 * travel in {@code Error}.
 */
package io.mpshare.scheduler.http;
