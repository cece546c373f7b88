/**
 * What mpshare's JDK HTTP servers that Kubernetes components call have in common (the admission webhook, the scheduler
 * extender, the device plugin's probe and metrics port): {@link io.mpshare.kube.http.DeadlineExecutor}, so that slow
 * or stalled clients never hold the workers a real request needs.
 */
package io.mpshare.kube.http;
