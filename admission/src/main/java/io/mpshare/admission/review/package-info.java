/**
 * The AdmissionReview v1 adapter: translates a v1.Pod into the core's {@code PodView}, runs the rules, and
 * answers allowed/denied with the reasons, or with a JSONPatch that sets {@code schedulerName}.
 */
package io.mpshare.admission.review;
