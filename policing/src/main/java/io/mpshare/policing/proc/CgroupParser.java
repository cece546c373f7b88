package io.mpshare.policing.proc;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the pod UID and container ID in the text of {@code /proc/<pid>/cgroup}.
 *
 * <p>Layouts understood (v1 lines {@code id:controllers:path}, v2 the single line {@code 0::path}):
 * <pre>
 * systemd driver   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c..._..._....slice/cri-containerd-&lt;id&gt;.scope
 *                  (also crio-&lt;id&gt;.scope, docker-&lt;id&gt;.scope; Guaranteed pods: kubepods-pod&lt;uid&gt;.slice)
 * containerd kind  /kubelet.slice/.../kubepods-besteffort-pod&lt;uid&gt;.slice:cri-containerd:&lt;id&gt;
 * cgroupfs driver  /kubepods/burstable/pod1b2c...-...-.../&lt;id&gt;   (also /kubepods/pod&lt;uid&gt;/&lt;id&gt;, crio-&lt;id&gt;)
 * Docker, no pod   /docker/&lt;id&gt;, /system.slice/docker-&lt;id&gt;.scope
 * cgroup namespace /../../kubepods-...-pod&lt;uid&gt;.slice/cri-containerd-&lt;id&gt;.scope (paths seen from a private cgroupns)
 * </pre>
 * Pod UIDs appear with '_' in systemd slice names and with '-' elsewhere; both are returned with '-'.
 * Static pods' UIDs are 32 hex digits with no separators. Container IDs are 64 hex digits. A
 * {@code crio-conmon-<id>} scope is CRI-O's monitor, not the container, and is not matched.
 *
 * <p>On cgroup v1 every controller line names the same container; the first line that yields a pod
 * wins, else the first that yields a container.
 */
public final class CgroupParser {
    private CgroupParser() {}

    private static final String UUID = "[0-9a-fA-F]{8}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{12}";
    private static final Pattern POD = Pattern.compile("pod(" + UUID + "|[0-9a-fA-F]{32})(?:\\.slice)?$");
    private static final Pattern CONTAINER = Pattern.compile(
            "^(?:(cri-containerd|containerd|crio|docker|cri-o)[-:])?([0-9a-fA-F]{64})(?:\\.scope)?$");

    /** Parses the whole file; {@link CgroupRef#NONE} when no line names a pod or container. */
    public static CgroupRef parse(String cgroupFile) {
        CgroupRef containerOnly = null;
        for (String line : cgroupFile.split("\n")) {
            String path = pathOf(line);
            if (path == null) continue;
            CgroupRef r = parsePath(path);
            if (r.isPod()) return r;
            if (containerOnly == null && r.containerId().isPresent()) containerOnly = r;
        }
        return containerOnly != null ? containerOnly : CgroupRef.NONE;
    }

    private static String pathOf(String line) {
        String l = line.strip();
        if (l.isEmpty()) return null;
        int first = l.indexOf(':');
        int second = first < 0 ? -1 : l.indexOf(':', first + 1);
        return second < 0 ? null : l.substring(second + 1);
    }

    /** Parses one cgroup path. */
    static CgroupRef parsePath(String path) {
        String pod = null, id = null, runtime = "";
        for (String segment : path.split("/")) {
            // kind/containerd systemd form joins slice, prefix and id with ':' in one segment
            for (String piece : segment.split(":")) {
                Matcher pm = POD.matcher(piece);
                if (pm.find()) pod = pm.group(1).replace('_', '-').toLowerCase(Locale.ROOT);
                Matcher cm = CONTAINER.matcher(piece);
                if (cm.matches()) {
                    id = cm.group(2).toLowerCase(Locale.ROOT);
                    runtime = runtimeName(cm.group(1));
                }
            }
            if (segment.startsWith("cri-containerd:") || segment.contains(":cri-containerd:")) runtime = id == null ? runtime : "containerd";
        }
        return new CgroupRef(Optional.ofNullable(pod), Optional.ofNullable(id), runtime);
    }

    private static String runtimeName(String prefix) {
        if (prefix == null) return "";
        return switch (prefix) {
            case "cri-containerd", "containerd" -> "containerd";
            case "crio", "cri-o" -> "crio";
            default -> prefix;
        };
    }

    /**
     * Strips the scheme of a pod status containerID ({@code containerd://ab12...}, {@code cri-o://...},
     * {@code docker://...}) so it compares with what {@link #parse} returns.
     */
    public static String bareId(String statusContainerId) {
        if (statusContainerId == null) return "";
        int i = statusContainerId.indexOf("://");
        return (i < 0 ? statusContainerId : statusContainerId.substring(i + 3)).toLowerCase(Locale.ROOT);
    }
}
