package io.mpshare.policing;

import java.util.Locale;

/** What the policer does about an over-limit pod or a rogue process (docs/decisions/policer-actions.md). */
public enum ActionPolicy {
    /** Report only: an event and a metric; nothing is stopped. */
    EVENT,
    /** End the offending MPS clients through the control daemon; a rogue process that is not a client is SIGKILLed. The default. */
    TERMINATE,
    /** Evict the offending pod through the Eviction API (PodDisruptionBudgets respected). */
    EVICT;

    /** Parses {@code event}, {@code terminate} or {@code evict}, any case. */
    public static ActionPolicy parse(String s) {
        try {
            return valueOf(s.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("policer action '" + s + "' is not one of event, terminate, evict");
        }
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
