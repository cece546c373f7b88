package io.mpshare.mps.preflight;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What an agent found in use before it started, each with the process that holds it when that can be seen. */
public record Occupancy(List<Use> uses) {
    /** What kind of resource, which decides the verb: holds a lock, serves a socket, listens on a port. */
    public enum Kind { LOCK, SOCKET, PORT }

    /**
     * @param what   the lock file or socket path, or a port as the user gave it ({@code port 39996 (--metrics-port)})
     * @param holder the process, when {@code /proc} or the lock file says which
     */
    public record Use(Kind kind, String what, Optional<Holder> holder) {
        public Use {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(what, "what");
            Objects.requireNonNull(holder, "holder");
        }
    }

    public Occupancy {
        uses = List.copyOf(uses);
    }

    public boolean isEmpty() { return uses.isEmpty(); }

    /** Whether a lock or a socket is taken, i.e. another instance of the agent runs (a taken port alone may be anything). */
    public boolean agentRunning() { return uses.stream().anyMatch(u -> u.kind() != Kind.PORT); }

    /** The ports in use, as given ({@code port 39996 (--metrics-port)}). */
    public List<String> ports() { return uses.stream().filter(u -> u.kind() == Kind.PORT).map(Use::what).toList(); }

    /**
     * One clause per process: {@code pid 1234 (mpshare device-plugin) holds L, serves a.sock and b.sock in D, and
     * listens on port 39996 (--metrics-port)}; a process that cannot be seen (another user's, another network
     * namespace's) is "another process".
     */
    public String describe() {
        Map<Optional<Holder>, List<Use>> byHolder = new LinkedHashMap<>();
        for (Use u : uses) byHolder.computeIfAbsent(u.holder(), h -> new ArrayList<>()).add(u);
        List<String> clauses = new ArrayList<>();
        byHolder.forEach((holder, us) -> {
            List<String> phrases = new ArrayList<>();
            for (Kind k : Kind.values()) {
                List<String> whats = us.stream().filter(u -> u.kind() == k).map(Use::what).toList();
                if (whats.isEmpty()) continue;
                phrases.add(switch (k) {
                    case LOCK -> "holds " + and(whats);
                    case SOCKET -> "serves " + sockets(whats);
                    case PORT -> "listens on " + and(whats);
                });
            }
            clauses.add(holder.map(Holder::toString).orElse("another process") + " " + and(phrases));
        });
        return String.join("; ", clauses);
    }

    /** {@code a.sock and b.sock in D} when they share a folder, else the paths. */
    private static String sockets(List<String> paths) {
        Path parent = Path.of(paths.getFirst()).getParent();
        boolean shared = paths.size() > 1 && parent != null && paths.stream().allMatch(p -> parent.equals(Path.of(p).getParent()));
        if (!shared) return and(paths);
        return and(paths.stream().map(p -> Path.of(p).getFileName().toString()).toList()) + " in " + parent;
    }

    /** {@code a}, {@code a and b}, {@code a, b, and c}. */
    static String and(List<String> items) {
        return switch (items.size()) {
            case 0 -> "";
            case 1 -> items.getFirst();
            case 2 -> items.get(0) + " and " + items.get(1);
            default -> String.join(", ", items.subList(0, items.size() - 1)) + ", and " + items.getLast();
        };
    }
}
