package io.mpshare.scheduler.http;

/**
 * Text kube-scheduler puts into a pod's Event: it formats the message printf-style (a {@code %} turns into
 * {@code %!c(MISSING)}) and cuts it at 1,024 characters before that, so every reason and bind Error the
 * extender sends goes through here: no percent sign, and bounded.
 */
public final class EventText {
    /** The longest single reason or Error: several distinct reasons plus kube-scheduler's own words stay under 1,024. */
    public static final int MAX = 300;

    private EventText() {}

    public static String safe(String s) {
        if (s == null || s.isEmpty()) return "";
        String t = s.indexOf('%') < 0 ? s : s.replace("%", " percent");
        return t.length() <= MAX ? t : t.substring(0, MAX - 3) + "...";
    }
}
