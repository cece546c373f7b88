package io.mpshare.mps;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The domains a supervisor runs, as {@code /domains} serves them ({@link SupervisorApi}): {@link MpsSupervisor} is the
 * real one; {@code fake.FakeDomains} (test-jar) moves states by hand for the device plugin's tests.
 */
public interface DomainService {
    /**
     * Creates the domain (starts its daemon) or, when it exists, applies the spec's ceiling and thread share to it; a
     * draining domain serves again. Completes once the request is recorded, usually before the daemon answers.
     */
    CompletableFuture<Answer> put(String id, DomainSpec spec);

    /** Drains the domain: {@code quit} once it has no client left. Empty when no such domain exists. */
    CompletableFuture<Optional<DomainStatus>> delete(String id);

    /** The domain as last published, or empty. Never blocks. */
    Optional<DomainStatus> domain(String id);

    /** Every domain as last published. Never blocks. */
    List<DomainStatus> domains();

    /** Completes when the domain is SERVING (at once if it is), exceptionally when it goes away first. */
    CompletableFuture<DomainStatus> whenServing(String id);

    /** What a PUT did. */
    sealed interface Answer {
        record Accepted(DomainStatus status) implements Answer {}

        /** Not done, and why; {@code conflict}: the id exists for another GPU or kind (ids derive from both). */
        record Refused(boolean conflict, String reason) implements Answer {}
    }
}
