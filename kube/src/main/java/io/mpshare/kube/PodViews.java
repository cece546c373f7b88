package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.mpshare.core.Names;
import io.mpshare.core.validation.ContainerView;
import io.mpshare.core.validation.EnvSource;
import io.mpshare.core.validation.PodView;
import io.mpshare.core.validation.SecurityView;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** v1.Pod to the admission rules' {@link PodView}: nothing but field copying. */
public final class PodViews {
    private PodViews() {}

    /** @param namespace the review's namespace, used when the pod's own is not set yet (it usually is not) */
    public static PodView of(Pod pod, String namespace) {
        ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
        PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
        String ns = meta.getNamespace() != null && !meta.getNamespace().isBlank() ? meta.getNamespace() : namespace;
        // pods of Jobs and ReplicaSets have no name yet at admission: show "mps-sample-*" from generateName
        String name = meta.getName() != null ? meta.getName() : meta.getGenerateName() != null ? meta.getGenerateName() + "*" : "";
        List<ContainerView> cs = new ArrayList<>();
        for (Container c : nonNull(spec.getInitContainers()))
            cs.add(container(c.getName(), true, Names.RESTART_POLICY_ALWAYS.equals(c.getRestartPolicy()), false, c.getResources(),
                    c.getSecurityContext(), c.getEnv(), c.getEnvFrom(), c.getVolumeMounts()));
        for (Container c : nonNull(spec.getContainers()))
            cs.add(container(c.getName(), false, false, false, c.getResources(), c.getSecurityContext(), c.getEnv(), c.getEnvFrom(), c.getVolumeMounts()));
        for (EphemeralContainer c : nonNull(spec.getEphemeralContainers()))
            cs.add(container(c.getName(), false, false, true, c.getResources(), c.getSecurityContext(), c.getEnv(), c.getEnvFrom(), c.getVolumeMounts()));
        Map<String, String> hostPaths = new LinkedHashMap<>();
        for (Volume v : nonNull(spec.getVolumes()))
            if (v.getHostPath() != null) hostPaths.put(v.getName() == null ? "" : v.getName(), nullToEmpty(v.getHostPath().getPath()));
        PodSecurityContext psc = spec.getSecurityContext();
        SecurityView podSecurity = psc == null ? SecurityView.NONE : SecurityView.pod(psc.getRunAsUser(), psc.getRunAsGroup(), psc.getRunAsNonRoot());
        return new PodView(ns, name, meta.getLabels() == null ? Map.of() : meta.getLabels(), spec.getSchedulerName(), cs,
                Boolean.TRUE.equals(spec.getHostIPC()),
                new PodView.Host(Boolean.TRUE.equals(spec.getHostPID()), Boolean.TRUE.equals(spec.getHostNetwork()), spec.getNodeName(), hostPaths),
                podSecurity, meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    }

    private static ContainerView container(String name, boolean init, boolean sidecar, boolean ephemeral, ResourceRequirements r,
                                           SecurityContext sc, List<EnvVar> envVars, List<EnvFromSource> envFrom, List<VolumeMount> mounts) {
        boolean privileged = sc != null && Boolean.TRUE.equals(sc.getPrivileged());
        List<String> env = new ArrayList<>();
        for (EnvVar e : nonNull(envVars)) if (e.getName() != null) env.add(e.getName());
        List<String> paths = new ArrayList<>();
        for (VolumeMount m : nonNull(mounts)) if (m.getMountPath() != null) paths.add(m.getMountPath());
        return new ContainerView(name == null ? "" : name, init,
                text(r == null ? null : r.getLimits()), text(r == null ? null : r.getRequests()), privileged, env, sidecar, ephemeral,
                security(sc), paths, sources(envFrom));
    }

    /** Each envFrom entry with its prefix; an entry naming neither a ConfigMap nor a Secret (which the API server refuses) as a ConfigMap without a name. */
    private static List<EnvSource> sources(List<EnvFromSource> envFrom) {
        List<EnvSource> out = new ArrayList<>();
        for (EnvFromSource e : nonNull(envFrom)) {
            if (e.getSecretRef() != null) out.add(new EnvSource(EnvSource.SECRET, e.getSecretRef().getName(), e.getPrefix()));
            else out.add(new EnvSource(EnvSource.CONFIG_MAP, e.getConfigMapRef() == null ? "" : e.getConfigMapRef().getName(), e.getPrefix()));
        }
        return out;
    }

    private static SecurityView security(SecurityContext sc) {
        if (sc == null) return SecurityView.NONE;
        List<String> add = sc.getCapabilities() == null ? List.of() : nonNull(sc.getCapabilities().getAdd());
        return new SecurityView(sc.getRunAsUser(), sc.getRunAsGroup(), sc.getRunAsNonRoot(), sc.getAllowPrivilegeEscalation(), add,
                sc.getProcMount());
    }

    private static Map<String, String> text(Map<String, Quantity> q) {
        Map<String, String> m = new LinkedHashMap<>();
        if (q != null) q.forEach((k, v) -> m.put(k, v == null ? "" : nullToEmpty(v.getAmount()) + nullToEmpty(v.getFormat())));
        return m;
    }

    private static String nullToEmpty(String s) { return s == null ? "" : s; }

    private static <T> List<T> nonNull(List<T> l) { return l == null ? List.of() : l; }
}
