package io.mpshare.core.validation;

import java.util.Objects;

/**
 * One {@code envFrom} entry of a container: every key of a ConfigMap or Secret becomes a variable, named
 * {@code prefix + key}. Admission cannot see the keys (they live in another object, editable after the pod is
 * admitted and read again at each container start), only the prefix.
 *
 * @param kind   {@code ConfigMap} or {@code Secret}
 * @param name   the object's name
 * @param prefix {@code envFrom[].prefix}, empty when not set
 */
public record EnvSource(String kind, String name, String prefix) {
    public static final String CONFIG_MAP = "ConfigMap", SECRET = "Secret";

    public EnvSource {
        Objects.requireNonNull(kind, "kind");
        name = name == null ? "" : name;
        prefix = prefix == null ? "" : prefix;
    }

    /** "ConfigMap cm", "Secret creds with prefix APP_". */
    public String describe() { return kind + " " + name + (prefix.isEmpty() ? "" : " with prefix " + prefix); }
}
