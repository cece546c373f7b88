package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.cluster.ClientUidLookup;
import io.mpshare.core.Names;
import io.mpshare.core.validation.ClientUid;
import io.mpshare.core.validation.ClientUidRules;
import io.mpshare.core.validation.PodValidator;
import io.mpshare.core.validation.PodView;
import io.mpshare.core.validation.Tenancy;
import io.mpshare.core.validation.Violation;
import io.mpshare.kube.ReviewedPod;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Answers AdmissionReviews for pods: {@link #validate} denies with every broken rule listed (a pod CREATE, or an
 * UPDATE of {@code pods/ephemeralcontainers}), {@link #mutate} steers shared-GPU pods to the mpshare scheduler and,
 * with {@link SecurityDefaults}, makes them run as a non-root UID in strict namespaces. The namespace's
 * {@link Tenancy} is the caller's: the webhook configuration picks the path by the namespace's label. With a
 * {@link ClientUidLookup}, strict namespaces also follow {@link ClientUidRules}: a namespace bound to a client UID has it
 * set where a shared-GPU pod sets none, and refused where it says another.
 * Anything that is not a pod is allowed untouched, and so is any other UPDATE of a pod: kube-apiserver refuses a change
 * to every field these rules read once the pod exists, except its annotations, which the chart's
 * ValidatingAdmissionPolicy guards on every update without a call to this webhook (docs/decisions/tenant-annotations.md).
 */
public final class PodAdmission {
    /** kube-apiserver's name for "no scheduler chosen": it defaults schedulerName before admission. */
    static final String DEFAULT_SCHEDULER = PodValidator.DEFAULT_SCHEDULER;
    static final String EPHEMERAL_SUBRESOURCE = "ephemeralcontainers";

    private final PodValidator validator;
    private final Supplier<OptionalLong> largestGpuMib;
    private final String schedulerName;
    private final KubernetesSerialization json;
    private final Optional<SecurityDefaults> defaults;
    private final Optional<ClientUidLookup> clientUids;

    /**
     * @param largestGpuMib the cluster's largest GPU, asked once per review (empty: unknown)
     * @param schedulerName scheduler to set on shared-GPU pods, or empty to leave schedulerName alone
     * @param defaults      the UID and group to set on shared-GPU pods of strict namespaces that set none, or empty
     */
    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName, KubernetesSerialization json,
                        Optional<SecurityDefaults> defaults) {
        this(validator, largestGpuMib, schedulerName, json, defaults, Optional.empty());
    }

    /** @param clientUids the namespaces' client-UID bindings, or empty to leave UIDs to the pods (no binding rules, no warning) */
    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName, KubernetesSerialization json,
                        Optional<SecurityDefaults> defaults, Optional<ClientUidLookup> clientUids) {
        this.validator = validator;
        this.largestGpuMib = largestGpuMib;
        this.schedulerName = schedulerName == null ? "" : schedulerName;
        this.json = json;
        this.defaults = defaults;
        this.clientUids = clientUids;
    }

    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName, KubernetesSerialization json) {
        this(validator, largestGpuMib, schedulerName, json, Optional.empty());
    }

    public PodAdmission(PodValidator validator, Supplier<OptionalLong> largestGpuMib, String schedulerName) {
        this(validator, largestGpuMib, schedulerName, new KubernetesSerialization());
    }

    /** {@link #validate(AdmissionReview, Tenancy)} for a strict namespace. */
    public AdmissionReview validate(AdmissionReview review) { return validate(review, Tenancy.STRICT); }

    public AdmissionReview validate(AdmissionReview review, Tenancy tenancy) {
        AdmissionRequest req = request(review);
        Optional<ReviewedPod> obj = ReviewedPod.of(req, json);
        if (obj.isEmpty()) return answer(allowed(req).build());
        PodView pod = obj.get().view();
        boolean ephemeral = EPHEMERAL_SUBRESOURCE.equals(req.getSubResource());
        if (!ephemeral && !creates(req)) return answer(allowed(req).build());
        List<Violation> violations = new ArrayList<>(ephemeral ? validator.validateEphemeral(pod, tenancy) : validator.validate(pod, largestGpuMib.get(), tenancy));
        ClientUid own = clientUids.map(l -> l.of(pod.namespace())).orElse(null);
        if (own != null) violations.addAll(ClientUidRules.violations(pod, tenancy, own, clientUids.get()::claimants, clientUids.get().anyBound(), ephemeral));
        if (violations.isEmpty()) return answer(allowed(req).withWarnings(ephemeral ? List.of() : warnings(pod, tenancy, own)).build());
        return answer(allowed(req).withAllowed(false)
                .withStatus(new StatusBuilder().withCode(403).withReason("Forbidden").withMessage(message(pod, violations, tenancy)).build())
                .build());
    }

    /** {@link #mutate(AdmissionReview, Tenancy)} for a strict namespace. */
    public AdmissionReview mutate(AdmissionReview review) { return mutate(review, Tenancy.STRICT); }

    public AdmissionReview mutate(AdmissionReview review, Tenancy tenancy) {
        AdmissionRequest req = request(review);
        Optional<ReviewedPod> obj = ReviewedPod.of(req, json);
        if (obj.isEmpty() || !creates(req) || req.getSubResource() != null && !req.getSubResource().isEmpty()) return answer(allowed(req).build());
        PodView pod = obj.get().view();
        if (!PodValidator.asksSharedGpu(pod)) return answer(allowed(req).build());
        List<Map<String, Object>> ops = new ArrayList<>();
        String current = pod.schedulerName();
        if (!schedulerName.isEmpty() && (current.isEmpty() || current.equals(DEFAULT_SCHEDULER))) {
            Map<String, Object> op = new LinkedHashMap<>();
            op.put("op", "add");
            op.put("path", "/spec/schedulerName");
            op.put("value", schedulerName);
            ops.add(op);
        }
        Optional<SecurityDefaults> user = tenancy != Tenancy.STRICT ? Optional.empty() : bound(pod.namespace()).or(() -> defaults);
        if (user.isPresent()) ops.addAll(user.get().ops(obj.get()));
        if (ops.isEmpty()) return answer(allowed(req).build());
        String patch = json.asJson(ops);
        return answer(allowed(req).withPatchType("JSONPatch")
                .withPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8))).build());
    }

    /** The namespace's client UID as the user to set (its group the same number), when it is bound to one. */
    private Optional<SecurityDefaults> bound(String namespace) {
        return clientUids.map(l -> l.of(namespace)).filter(u -> u instanceof ClientUid.Bound)
                .map(u -> new SecurityDefaults(((ClientUid.Bound) u).uid(), ((ClientUid.Bound) u).uid()));
    }

    private static List<String> warnings(PodView pod, Tenancy tenancy, ClientUid own) {
        List<String> out = new ArrayList<>(PodValidator.warnings(pod, tenancy));
        if (own != null) out.addAll(ClientUidRules.warnings(pod, tenancy, own));
        return out;
    }

    /** {@link #message(PodView, List, Tenancy)} for a strict namespace. */
    static String message(PodView pod, List<Violation> violations) { return message(pod, violations, Tenancy.STRICT); }

    /**
     * "pod team-a/p rejected by mpshare: 1) ... 2) ..." — one sentence per broken rule; when a trusted namespace
     * would admit what is refused, the label that does it.
     */
    static String message(PodView pod, List<Violation> violations, Tenancy tenancy) {
        StringBuilder sb = new StringBuilder("pod ").append(pod.describe()).append(" rejected by mpshare: ");
        boolean labelHelps = false;
        for (int i = 0; i < violations.size(); i++) {
            if (violations.size() > 1) sb.append(i + 1).append(") ");
            sb.append(violations.get(i).message());
            if (i + 1 < violations.size()) sb.append("; ");
            labelHelps |= violations.get(i).rule().trustedAdmits();
        }
        if (labelHelps && tenancy == Tenancy.STRICT)
            sb.append(" (or, if every pod author of namespace ").append(pod.namespace()).append(" may stop the node's MPS daemon, admit root")
                    .append(" and host namespaces there: kubectl label namespace ").append(pod.namespace()).append(' ')
                    .append(Names.LABEL_TENANCY).append('=').append(Names.TENANCY_TRUSTED).append(')');
        return sb.toString();
    }

    private static AdmissionRequest request(AdmissionReview review) {
        AdmissionRequest req = review.getRequest();
        if (req == null) throw new IllegalArgumentException("AdmissionReview has no request");
        return req;
    }

    /** CREATE, or no operation given (older test reviews). */
    private static boolean creates(AdmissionRequest req) { return req.getOperation() == null || "CREATE".equals(req.getOperation()); }

    private static AdmissionResponseBuilder allowed(AdmissionRequest req) {
        return new AdmissionResponseBuilder().withUid(req.getUid()).withAllowed(true);
    }

    private static AdmissionReview answer(AdmissionResponse resp) {
        return new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1").withKind("AdmissionReview").withResponse(resp).build();
    }
}
