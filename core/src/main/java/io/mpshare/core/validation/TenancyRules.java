package io.mpshare.core.validation;

import io.mpshare.core.Names;
import io.mpshare.core.validation.Violation.Rule;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rules that keep a shared-GPU pod from commanding the node's MPS daemon or reaching another UID
 * (docs/decisions/tenant-isolation.md lists each route and the rule that closes it).
 *
 * <p>MPS takes {@code quit}, {@code set_*} and {@code terminate_client} only from root or the daemon's UID, and the
 * pipe directory every shared-GPU container is given holds the control socket (a read-only mount does not stop a
 * connect). So in {@link Tenancy#STRICT} namespaces each container must run as a non-root UID and be unable to
 * regain root (no privilege escalation), and the pod may not share the host's PID, IPC or network namespace; in
 * {@link Tenancy#TRUSTED} ones those become warnings. In both: no capability, hostPath or unmasked /proc that
 * reaches other UIDs, the daemons' sockets or the kubelet.
 */
final class TenancyRules {
    /** Capabilities that reach other UIDs (SETUID, SETGID, KILL, SYS_PTRACE), their files (DAC_*, FOWNER, CHOWN) or the kernel. */
    static final Set<String> DANGEROUS_CAPS = Set.of("ALL", "SYS_ADMIN", "SYS_PTRACE", "SETUID", "SETGID", "DAC_OVERRIDE",
            "DAC_READ_SEARCH", "FOWNER", "CHOWN", "KILL", "SYS_MODULE", "SYS_RAWIO", "BPF");
    private static final String QUIT_RISK = "a root process can send quit to the node's MPS daemon through its pipe directory,"
            + " which stops every shared-GPU pod on the node, or raise any pod's memory cap";

    private TenancyRules() {}

    /** The container-level rules for {@code c} of {@code pod}. Root in a trusted namespace is a warning, added by {@link #warnings}. */
    static void container(PodView pod, ContainerView c, Tenancy t, List<Violation> out) {
        SecurityView s = c.security();
        String who = c.describe();
        if (t == Tenancy.STRICT) {
            String root = rootReason(pod, c);
            if (root != null) out.add(new Violation(Rule.ROOT, c.name(), who + " runs as root (" + root + "), and " + QUIT_RISK
                    + ": set securityContext.runAsUser to a non-zero UID and runAsNonRoot: true"
                    + (c.ephemeral() ? " (kubectl debug --profile=restricted)" : "")));
            else if (!Boolean.FALSE.equals(s.allowPrivilegeEscalation()))
                out.add(new Violation(Rule.PRIVILEGE_ESCALATION, c.name(), who + " may regain root through a setuid binary of its image:"
                        + " set securityContext.allowPrivilegeEscalation: false" + (c.ephemeral() ? " (kubectl debug --profile=restricted)" : "")));
        }
        for (String cap : s.capAdd()) {
            String name = cap.toUpperCase(Locale.ROOT).replaceFirst("^CAP_", "");
            if (DANGEROUS_CAPS.contains(name))
                out.add(new Violation(Rule.CAPABILITIES, c.name(), who + " adds capability " + cap + ", which reaches other users' processes,"
                        + " files or the kernel on a node whose GPUs it shares: remove it from securityContext.capabilities.add"));
        }
        if ("Unmasked".equalsIgnoreCase(s.procMount()))
            out.add(new Violation(Rule.PROC_MOUNT, c.name(), who + " asks procMount: Unmasked, which exposes the host's kernel settings:"
                    + " remove it"));
    }

    /** The pod-level rules: host namespaces (strict), host paths. */
    static void pod(PodView pod, Tenancy t, List<String> protectedPaths, List<Violation> out) {
        if (t == Tenancy.STRICT) {
            PodView.Host h = pod.host();
            if (h.hostPID()) out.add(new Violation(Rule.HOST_NAMESPACE, "", hostPidRisk() + ": remove hostPID"));
            if (pod.hostIPC()) out.add(new Violation(Rule.HOST_NAMESPACE, "", hostIpcRisk() + ": remove hostIPC (MPS clients do not need it on driver 580 and later)"));
            if (h.hostNetwork()) out.add(new Violation(Rule.HOST_NAMESPACE, "", hostNetworkRisk() + ": remove hostNetwork"));
        }
        hostPaths(pod, protectedPaths, "", out);
    }

    /**
     * A hostPath volume at, under or above one of {@code protectedPaths} (the first is the MPS run folder, the last the
     * host's /proc, the ones between kubelet root folders); {@code hint} is appended to each message.
     */
    static void hostPaths(PodView pod, List<String> protectedPaths, String hint, List<Violation> out) {
        for (Map.Entry<String, String> v : pod.host().hostPaths().entrySet()) {
            String path = normalize(v.getValue());
            for (String p : protectedPaths)
                if (reaches(path, p)) {
                    out.add(new Violation(Rule.HOST_PATH, "", "volume " + v.getKey() + " mounts host path " + v.getValue() + ", which reaches "
                            + p + " (" + what(p) + "): remove the volume or mount a folder outside it" + hint));
                    break;
                }
        }
    }

    private static String what(String protectedPath) {
        if (protectedPath.equals(Names.RUN_DIR)) return "the MPS daemons' control sockets";
        if (protectedPath.equals(AdmissionRules.HOST_PROC)) return "every process of the node, and through /proc/<pid>/root their files";
        return "the kubelet's sockets and every pod's volumes";
    }

    /** What a trusted namespace admits but should know: root and each host namespace, with its risk. */
    static void warnings(PodView pod, List<String> out) {
        for (ContainerView c : pod.containers()) {
            String root = rootReason(pod, c);
            if (root != null) {
                out.add("pod " + pod.describe() + ": " + c.describe() + " runs as root (" + root + ") in a namespace labelled "
                        + Names.LABEL_TENANCY + "=" + Names.TENANCY_TRUSTED + ": " + QUIT_RISK + "; run it as a non-root UID where you can");
                break;
            }
        }
        if (pod.host().hostPID()) out.add("pod " + pod.describe() + ": " + hostPidRisk());
        if (pod.host().hostNetwork()) out.add("pod " + pod.describe() + ": " + hostNetworkRisk());
    }

    /** Why {@code c} runs as root, or null when it runs as a non-root UID (or kubelet refuses to start it as root). */
    static String rootReason(PodView pod, ContainerView c) {
        Long uid = c.security().runAsUser() != null ? c.security().runAsUser() : pod.security().runAsUser();
        if (uid != null) return uid == 0 ? "runAsUser: 0" : null;
        Boolean nonRoot = c.security().runAsNonRoot() != null ? c.security().runAsNonRoot() : pod.security().runAsNonRoot();
        return Boolean.TRUE.equals(nonRoot) ? null : "no runAsUser and runAsNonRoot unset: the image's user";
    }

    private static String hostPidRisk() {
        return "hostPID lets it signal and trace processes of its UID in other pods and reach their files through /proc";
    }

    private static String hostIpcRisk() { return "hostIPC shares the node's System V IPC with every pod that has it"; }

    private static String hostNetworkRisk() { return "hostNetwork reaches every service on the node's loopback"; }

    /** An absolute path without ".", ".." or repeated slashes; /var/run is the symlink to /run it is on every distribution we support. */
    static String normalize(String path) {
        Deque<String> parts = new ArrayDeque<>();
        for (String seg : (path == null ? "" : path).split("/")) {
            if (seg.isEmpty() || seg.equals(".")) continue;
            if (seg.equals("..")) parts.pollLast();
            else parts.addLast(seg);
        }
        String n = "/" + String.join("/", parts);
        return n.equals("/var/run") || n.startsWith("/var/run/") ? "/run" + n.substring("/var/run".length()) : n;
    }

    /** {@code path} is {@code target}, inside it, or a folder above it. */
    static boolean reaches(String path, String target) {
        if (path.equals(target) || path.startsWith(target + "/")) return true;
        return path.equals("/") || target.startsWith(path + "/");
    }
}
