package io.mpshare.host;

import io.mpshare.host.CallerPolicy.Caller;
import io.mpshare.host.CallerPolicy.Verdict;
import io.mpshare.host.state.JobRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class CallerPolicyTest {
    record User(String getName, int uid) implements UserPrincipal {}

    static final User ROOT = new User("root", 0), ALICE = new User("alice", 1000), BOB = new User("bob", 1001);
    static final Caller AS_ROOT = new Caller(ROOT, true), AS_ALICE = new Caller(ALICE, false), AS_BOB = new Caller(BOB, false);
    /** pid 10 is alice's, 20 bob's, 1 root's; others are not running. */
    static final PidOwners OWNERS = pid -> Optional.ofNullable(Map.<Long, UserPrincipal>of(10L, ALICE, 20L, BOB, 1L, ROOT).get(pid));
    static final CallerPolicy POLICY = new CallerPolicy(OWNERS);

    static JobRecord job(String owner) {
        return new JobRecord("job-1", 10, 1, List.of(0), List.of("GPU-a"), 1024, 0, 512, owner, List.of("sleep"), 0, false);
    }

    static Stream<Arguments> names() {
        return Stream.of(
                argumentSet("own process", AS_ALICE, 10L, null),
                argumentSet("another user's process", AS_ALICE, 20L, "process 20 belongs to user bob, not to alice"),
                argumentSet("a root process", AS_BOB, 1L, "process 1 belongs to user root, not to bob"),
                argumentSet("no such process", AS_ALICE, 99L, "process 99 is not running"),
                argumentSet("root names anyone's", AS_ROOT, 20L, null),
                argumentSet("root names even a missing one (the service refuses it)", AS_ROOT, 99L, null));
    }

    @ParameterizedTest
    @MethodSource("names")
    void mayName_onlyOwnProcesses_rootAny(Caller c, long pid, String refusal) {
        check(POLICY.mayName(c, pid), refusal);
    }

    static Stream<Arguments> acts() {
        return Stream.of(
                argumentSet("own job", AS_ALICE, "alice", null),
                argumentSet("another user's job", AS_BOB, "alice", "job job-1 belongs to user alice, not to bob"),
                argumentSet("a job of unknown owner (old state file)", AS_BOB, "", "belongs to user (unknown)"),
                argumentSet("root acts on any job", AS_ROOT, "alice", null));
    }

    @ParameterizedTest
    @MethodSource("acts")
    void mayAct_onlyOwnJobs_rootAny(Caller c, String owner, String refusal) {
        check(POLICY.mayAct(c, job(owner)), refusal);
    }

    static void check(Verdict v, String refusal) {
        if (refusal == null) assertThat(v).isInstanceOf(Verdict.Allowed.class);
        else assertThat(v).isInstanceOfSatisfying(Verdict.Refused.class, r -> assertThat(r.reason()).contains(refusal));
    }
}
