package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.core.validation.PodValidator;
import io.mpshare.core.validation.PodView;
import io.mpshare.core.validation.Violation;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Answers AdmissionReviews for pods: {@link #validate} denies with every broken rule listed, {@link #mutate}
 * steers shared-GPU pods to the mpshare scheduler. Anything that is not a pod is allowed untouched.
 */
public final class PodAdmission {
    /** kube-apiserver's name for "no scheduler chosen": it defaults schedulerName before admission. */
    static final String DEFAULT_SCHEDULER = "default-scheduler";

    private final PodValidator validator;
    private final Supplier<OptionalLong> largestGpuMib;
    private final String schedulerName;
    private final KubernetesSerialization json;

    /**
     * @param largestGpuMib the cluster's largest GPU, asked once per review (empty: unknown)
     * @param schedulerName scheduler to set on shared-GPU pods, or empty to leave schedulerName alone
     */
    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName, KubernetesSerialization json) {
        this.validator = validator;
        this.largestGpuMib = largestGpuMib;
        this.schedulerName = schedulerName == null ? "" : schedulerName;
        this.json = json;
    }

    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName) {
        this(validator, largestGpuMib, schedulerName, new KubernetesSerialization());
    }

    public AdmissionReview validate(AdmissionReview review) {
        AdmissionRequest req = review.getRequest();
        if (req == null) throw new IllegalArgumentException("AdmissionReview has no request");
        PodView pod = pod(req);
        if (pod == null) return answer(allowed(req).build());
        List<Violation> violations = validator.validate(pod, largestGpuMib.get());
        if (violations.isEmpty()) return answer(allowed(req).withWarnings(PodValidator.warnings(pod)).build());
        return answer(allowed(req).withAllowed(false)
                .withStatus(new StatusBuilder().withCode(403).withReason("Forbidden").withMessage(message(pod, violations)).build())
                .build());
    }

    public AdmissionReview mutate(AdmissionReview review) {
        AdmissionRequest req = review.getRequest();
        if (req == null) throw new IllegalArgumentException("AdmissionReview has no request");
        PodView pod = pod(req);
        if (pod == null || schedulerName.isEmpty() || !PodValidator.asksSharedGpu(pod)) return answer(allowed(req).build());
        String current = pod.schedulerName();
        if (!current.isEmpty() && !current.equals(DEFAULT_SCHEDULER)) return answer(allowed(req).build());
        String patch = "[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"" + schedulerName.replace("\"", "") + "\"}]";
        return answer(allowed(req).withPatchType("JSONPatch")
                .withPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8))).build());
    }

    /** "pod team-a/p rejected by mpshare: 1) ... 2) ..." — one sentence per broken rule. */
    static String message(PodView pod, List<Violation> violations) {
        StringBuilder sb = new StringBuilder("pod ").append(pod.describe()).append(" rejected by mpshare: ");
        for (int i = 0; i < violations.size(); i++) {
            if (violations.size() > 1) sb.append(i + 1).append(") ");
            sb.append(violations.get(i).message());
            if (i + 1 < violations.size()) sb.append("; ");
        }
        return sb.toString();
    }

    private PodView pod(AdmissionRequest req) {
        Object obj = req.getObject();
        Pod pod;
        if (obj instanceof Pod p) pod = p;
        else if (obj != null && req.getKind() != null && "Pod".equals(req.getKind().getKind()) && "".equals(nullToEmpty(req.getKind().getGroup())))
            pod = json.convertValue(obj, Pod.class);
        else return null;
        return PodViews.of(pod, req.getNamespace());
    }

    private static String nullToEmpty(String s) { return s == null ? "" : s; }

    private static AdmissionResponseBuilder allowed(AdmissionRequest req) {
        return new AdmissionResponseBuilder().withUid(req.getUid()).withAllowed(true);
    }

    private static AdmissionReview answer(AdmissionResponse resp) {
        return new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1").withKind("AdmissionReview").withResponse(resp).build();
    }
}
