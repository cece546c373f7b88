/**
 * The AdmissionReview v1 adapter: takes the pod of a review as the rules' {@code PodView} (read by
 * {@code io.mpshare.kube.ReviewedPod}), runs the rules, and answers allowed/denied with the reasons, or with a
 * JSONPatch that sets {@code schedulerName}.
 */
package io.mpshare.admission.review;
