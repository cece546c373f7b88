package io.mpshare.scheduler.http;

/** A request body that cannot be read; the message says what is wrong, for the {@code Error} field. */
public final class WireException extends Exception {
    public WireException(String message) { super(message); }
}
