package io.mpshare.admission.tls;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An {@link SSLContext} whose certificate can be replaced while a server uses it: every engine, factory and parameter
 * comes from the context last given to {@link #swap}. The JDK's {@code HttpsServer} takes its context once, before it
 * starts (a later {@code setHttpsConfigurator} throws "server already started"), so a rotated mounted certificate
 * reaches new connections through this context instead; open connections keep the certificate they started with.
 */
public final class SwappableSslContext extends SSLContext {
    private final Delegate delegate;

    private SwappableSslContext(Delegate delegate, SSLContext initial) {
        super(delegate, initial.getProvider(), initial.getProtocol());
        this.delegate = delegate;
    }

    /** A context serving {@code initial}'s certificate until {@link #swap}. */
    public static SwappableSslContext of(SSLContext initial) {
        return new SwappableSslContext(new Delegate(new AtomicReference<>(initial)), initial);
    }

    /** Connections accepted from now on are served with {@code next}. */
    public void swap(SSLContext next) { delegate.current.set(next); }

    private static final class Delegate extends SSLContextSpi {
        final AtomicReference<SSLContext> current;

        Delegate(AtomicReference<SSLContext> current) { this.current = current; }

        @Override protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
            throw new UnsupportedOperationException("a swappable context is initialised by the contexts it is given");
        }

        @Override protected SSLSocketFactory engineGetSocketFactory() { return current.get().getSocketFactory(); }

        @Override protected SSLServerSocketFactory engineGetServerSocketFactory() { return current.get().getServerSocketFactory(); }

        @Override protected SSLEngine engineCreateSSLEngine() { return current.get().createSSLEngine(); }

        @Override protected SSLEngine engineCreateSSLEngine(String host, int port) { return current.get().createSSLEngine(host, port); }

        @Override protected SSLSessionContext engineGetServerSessionContext() { return current.get().getServerSessionContext(); }

        @Override protected SSLSessionContext engineGetClientSessionContext() { return current.get().getClientSessionContext(); }

        @Override protected SSLParameters engineGetDefaultSSLParameters() { return current.get().getDefaultSSLParameters(); }

        @Override protected SSLParameters engineGetSupportedSSLParameters() { return current.get().getSupportedSSLParameters(); }
    }
}
