package io.mpshare.host;

import io.mpshare.host.state.JobRecord;

import java.nio.file.attribute.UserPrincipal;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may do what on the host API: the caller (from the socket's peer credentials, which the kernel vouches for)
 * acts only on its own jobs and names only processes it owns; root may act on any. Being able to connect at all is
 * the socket's group (mode 0660), as before.
 *
 * <p>Pure: the process owner lookup is injected ({@link PidOwners}); identities compare as the system's user
 * principals do (by UID). A job's owner is the caller's user name as the system resolves its UID, recorded when
 * the job is booked.
 */
public final class CallerPolicy {
    /** The peer of one connection. */
    public record Caller(UserPrincipal user, boolean root) {
        public Caller {
            Objects.requireNonNull(user, "user");
        }

        public String name() { return user.getName(); }
    }

    /** The answer: allowed, or refused with a sentence that says why and what to do. */
    public sealed interface Verdict {
        record Allowed() implements Verdict {}
        record Refused(String reason) implements Verdict {}
    }

    private static final Verdict ALLOWED = new Verdict.Allowed();
    private final PidOwners owners;

    public CallerPolicy(PidOwners owners) { this.owners = Objects.requireNonNull(owners, "owners"); }

    /** May {@code c} name process {@code pid} (as the process holding a job, or as a job's command)? */
    public Verdict mayName(Caller c, long pid) {
        if (c.root()) return ALLOWED;
        Optional<UserPrincipal> owner = owners.owner(pid);
        if (owner.isEmpty()) return new Verdict.Refused("process " + pid + " is not running");
        if (owner.get().equals(c.user())) return ALLOWED;
        return new Verdict.Refused("process " + pid + " belongs to user " + owner.get().getName() + ", not to " + c.name()
                + ": name a process of your own (mpshare run does)");
    }

    /** May {@code c} release job {@code job} or tell its command's PID? */
    public Verdict mayAct(Caller c, JobRecord job) {
        if (c.root() || job.user().equals(c.name())) return ALLOWED;
        return new Verdict.Refused("job " + job.id() + " belongs to user " + (job.user().isEmpty() ? "(unknown)" : job.user())
                + ", not to " + c.name() + ": only its owner or root may release it or change its process");
    }
}
