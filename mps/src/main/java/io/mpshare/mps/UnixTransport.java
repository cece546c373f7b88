package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link SupervisorStatusClient}'s unix-socket transport. The whole exchange, connect included, has one deadline: a
 * stopped supervisor (SIGSTOP, a frozen JVM) still has its socket's backlog accept the connect and then never answers,
 * so a read without a deadline would hang the caller. On the deadline the channel is closed, which ends the blocked call.
 */
record UnixTransport(Path socket, Duration timeout) implements SupervisorStatusClient.Transport {
    @Override public UnixHttp.Response exchange(String method, String path, byte[] body) {
        if (!Files.exists(socket))
            throw new MpsException(Reason.DAEMON_DOWN, "no MPS supervisor socket at " + socket + " (mps-control of this colour not running?)");
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new MpsException(Reason.CANNOT_RUN, "cannot open a unix socket: " + e.getMessage(), e);
        }
        CompletableFuture<UnixHttp.Response> answer = new CompletableFuture<>();
        Thread.ofVirtual().name("supervisor-client").start(() -> {
            try (channel) {
                channel.connect(UnixDomainSocketAddress.of(socket));
                answer.complete(UnixHttp.exchange(channel, method, path, body));
            } catch (IOException | RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            close(channel);
            throw new MpsException(Reason.TIMEOUT, "the MPS supervisor at " + socket + " did not answer " + path + " within "
                    + timeout.toMillis() + " ms (hung or stopped?)", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw new MpsException(Reason.DAEMON_DOWN, "the MPS supervisor at " + socket + " does not answer: " + c.getMessage(), c);
        } catch (InterruptedException e) {
            close(channel);
            Thread.currentThread().interrupt();
            throw new MpsException(Reason.TIMEOUT, "interrupted while asking " + socket, e);
        }
    }

    private static void close(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // the exchange is abandoned either way
        }
    }
}
