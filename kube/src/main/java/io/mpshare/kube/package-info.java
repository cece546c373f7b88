/**
 * The one Kubernetes edge for pods: {@link io.mpshare.kube.KubePod} reads a v1.Pod into the core's terms once
 * (key, UID, node, phase, what it asks, its booking), {@link io.mpshare.kube.PodFacts} is the text of what it asks
 * with the one translation to {@code PodInfo}, and the pod reads and writes (the informer, the LISTs, the GET and
 * Binding of a bind, the pod of an AdmissionReview) hand out those values. Outside this package, mpshare's
 * components hold a {@code KubePod}, never the fabric8 object.
 */
package io.mpshare.kube;
