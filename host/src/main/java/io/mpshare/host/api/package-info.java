/**
 * The local API of {@code mpshare host}: one JSON object per line over a unix domain socket, one request per
 * connection. The socket file's owner, group and mode (0660) decide who may connect; each request is answered for
 * the peer's user ({@code SO_PEERCRED}), and {@link io.mpshare.host.CallerPolicy} keeps callers to their own jobs and processes. {@link io.mpshare.host.api.HostClient}
 * is the client {@code mpshare run} and {@code mpshare ps} use.
 */
package io.mpshare.host.api;
