/**
 * The admission webhook: {@link io.mpshare.admission.WebhookServer} serves AdmissionReview v1 over HTTPS
 * and hands each review to {@link io.mpshare.admission.review.PodAdmission}, which applies the core rules
 * ({@code io.mpshare.core.validation}). TLS comes from {@code tls}; the cluster's largest GPU from {@code cluster}.
 */
package io.mpshare.admission;
