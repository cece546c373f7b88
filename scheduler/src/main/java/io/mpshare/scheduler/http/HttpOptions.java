package io.mpshare.scheduler.http;

/**
 * How the extender's HTTP face is exposed.
 *
 * @param maxRequestBytes       the largest request body read; larger ones are answered with an Error
 * @param verbsFromLoopbackOnly filter, prioritize and bind answer only callers on 127.0.0.1/::1 (bundled
 *                              mode: kube-scheduler runs in the same pod); GET endpoints stay open for
 *                              probes and metrics
 * @param tls                   HTTPS, with the verbs only for callers that present a client certificate
 *                              signed by {@link TlsFiles#clientCa} (extender-only mode); null: plain HTTP
 */
public record HttpOptions(long maxRequestBytes, boolean verbsFromLoopbackOnly, TlsFiles tls) {
    /** 8 MiB: a filter with 5,000 node names is about 100 KiB, one carrying full Node objects a few MiB. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 8L << 20;

    public HttpOptions {
        if (maxRequestBytes < 1024 || maxRequestBytes > Integer.MAX_VALUE - 16)
            throw new IllegalArgumentException("max request bytes must be 1024 to " + (Integer.MAX_VALUE - 16) + ", got " + maxRequestBytes);
    }

    public static HttpOptions defaults() { return new HttpOptions(DEFAULT_MAX_REQUEST_BYTES, false, null); }

    /**
     * Bundled mode (plain HTTP, verbs from loopback only): nothing outside the pod may call the main port, so it listens
     * on 127.0.0.1 alone and a slow client elsewhere cannot even connect.
     */
    public boolean loopbackOnly() { return verbsFromLoopbackOnly && tls == null; }
}
