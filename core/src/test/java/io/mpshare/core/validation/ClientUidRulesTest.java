package io.mpshare.core.validation;

import io.mpshare.core.Names;
import io.mpshare.core.validation.PodValidatorTest.CB;
import io.mpshare.core.validation.PodValidatorTest.PodB;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class ClientUidRulesTest {
    /** team-a is bound to 1000, team-b to 2000; both also claim nothing else. */
    private static final Map<Long, Set<String>> CLAIMS = Map.of(1000L, Set.of("team-a"), 2000L, Set.of("team-b"));
    private static final LongFunction<Set<String>> CLAIMANTS = uid -> CLAIMS.getOrDefault(uid, Set.of());
    private static final ClientUid A = new ClientUid.Bound(1000);

    record Case(String name, PodView pod, Tenancy tenancy, ClientUid own, boolean ephemeralOnly, List<String> says, boolean someBound) {
        Case(String name, PodView pod, Tenancy tenancy, ClientUid own, boolean ephemeralOnly, List<String> says) {
            this(name, pod, tenancy, own, ephemeralOnly, says, true);
        }
        @Override public String toString() { return name; }
    }

    static Stream<Case> cases() {
        return Stream.of(
                ok("bound, pod runs as the namespace's UID", gpu().podSecurity(1000L, true), A),
                ok("bound, container sets the namespace's UID over another pod-level one", gpu(c("main").mem("4").uid(1000L)).podSecurity(3000L, true), A),
                bad("bound, pod-level UID is another", gpu().podSecurity(3000L, true), A,
                        "the pod runs as UID 3000, but namespace team-a runs its shared-GPU pods as UID 1000 (annotation mpshare.io/client-uid): set securityContext.runAsUser: 1000"),
                bad("bound, one container sets another UID", gpu(c("main").mem("4"), c("side").uid(3000L)), A, "container side runs as UID 3000, but namespace team-a"),
                bad("bound, no runAsUser anywhere (the mutating webhook did not run)", gpu().podSecurity(null, true), A,
                        "container main sets no runAsUser, and namespace team-a runs its shared-GPU pods as UID 1000 (annotation mpshare.io/client-uid): set securityContext.runAsUser: 1000"),
                bad("bound, root is another UID too", gpu(c("main").mem("4").uid(0L)), A, "container main runs as UID 0, but"),
                bad("bound, pod-level wrong is said once for all containers", gpu(c("main").mem("4"), c("side")).podSecurity(3000L, true), A,
                        "the pod runs as UID 3000"),
                bad("unbound, runs as a UID team-b claimed", gpu().ns("team-c").podSecurity(2000L, true), ClientUid.UNBOUND,
                        "UID 2000 belongs to namespace team-b (annotation mpshare.io/client-uid), and MPS lets a client terminate any client of its UID: run container main as another UID"),
                bad("unbound, a sidecar runs as the claimed UID", gpu(c("main").mem("4"), c("side").uid(1000L)).ns("team-c"), ClientUid.UNBOUND, "UID 1000 belongs to namespace team-a"),
                ok("unbound, an unclaimed UID", gpu().ns("team-c").podSecurity(5000L, true), ClientUid.UNBOUND),
                bad("unbound, no runAsUser while some UID is bound: the image's user could be it", gpu().ns("team-c").podSecurity(null, true), ClientUid.UNBOUND,
                        "container main sets no runAsUser, so it runs as its image's user, which could be a UID bound to another namespace"),
                new Case("unbound, no runAsUser and no UID bound anywhere: as before", gpu().ns("team-c").podSecurity(null, true).view(), Tenancy.STRICT,
                        ClientUid.UNBOUND, false, List.of(), false),
                ok("unbound, root without a UID is left to the ROOT rule", gpu().ns("team-c").podSecurity(null, null), ClientUid.UNBOUND),
                ok("bound to a UID another namespace also claims (the admin's choice)", gpu().ns("team-x").podSecurity(1000L, true), A),
                bad("invalid annotation refuses every shared-GPU pod", gpu(), new ClientUid.Invalid("root"),
                        "namespace team-a has annotation mpshare.io/client-uid=\"root\", which is not a UID from 1 to 2147483647: ask the cluster admin"),
                new Case("trusted namespace: not judged", gpu().podSecurity(3000L, true).view(), Tenancy.TRUSTED, A, false, List.of()),
                ok("pod without a shared GPU: not judged", new PodB().podSecurity(3000L, true).c(c("main")), A),
                new Case("ephemeral update: only the debug container is judged", gpu(c("main").mem("4").uid(3000L), c("dbg").ephemeral()).view(),
                        Tenancy.STRICT, A, true, List.of()),
                new Case("ephemeral update: a debug container of another UID", gpu(c("main").mem("4"), c("dbg").ephemeral().uid(3000L)).view(),
                        Tenancy.STRICT, A, true, List.of("ephemeral container dbg runs as UID 3000")),
                new Case("ephemeral update in an unbound namespace: a claimed UID", gpu(c("main").mem("4").uid(5000L), c("dbg").ephemeral().uid(2000L)).ns("team-c").view(),
                        Tenancy.STRICT, ClientUid.UNBOUND, true, List.of("UID 2000 belongs to namespace team-b")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void violations_table(Case c) {
        List<Violation> got = ClientUidRules.violations(c.pod(), c.tenancy(), c.own(), CLAIMANTS, c.someBound(), c.ephemeralOnly());
        assertThat(got).allSatisfy(v -> assertThat(v.rule()).isEqualTo(Violation.Rule.CLIENT_UID));
        assertThat(got).hasSize(c.says().size());
        for (int i = 0; i < c.says().size(); i++) assertThat(got.get(i).message()).contains(c.says().get(i));
    }

    static Stream<Arguments> warnings() {
        return Stream.of(
                Arguments.of("unbound strict", ClientUid.UNBOUND, Tenancy.STRICT, true),
                Arguments.of("bound strict", A, Tenancy.STRICT, false),
                Arguments.of("unbound trusted", ClientUid.UNBOUND, Tenancy.TRUSTED, false),
                Arguments.of("invalid strict (refused instead)", new ClientUid.Invalid("x"), Tenancy.STRICT, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("warnings")
    void warnings_unboundStrictOnly(String name, ClientUid own, Tenancy tenancy, boolean warned) {
        List<String> got = ClientUidRules.warnings(gpu().view(), tenancy, own);
        if (!warned) { assertThat(got).isEmpty(); return; }
        assertThat(got).singleElement().asString()
                .contains("namespace team-a has no " + Names.ANN_CLIENT_UID)
                .contains("any pod that runs as the same UID can terminate this pod's GPU clients")
                .contains("kubectl annotate namespace team-a mpshare.io/client-uid=<UID>");
    }

    static Stream<Arguments> parse() {
        return Stream.of(
                Arguments.of(null, ClientUid.UNBOUND),
                Arguments.of("1000", new ClientUid.Bound(1000)),
                Arguments.of("1", new ClientUid.Bound(1)),
                Arguments.of("2147483647", new ClientUid.Bound(2147483647L)),
                Arguments.of("0", new ClientUid.Invalid("0")),
                Arguments.of("2147483648", new ClientUid.Invalid("2147483648")),
                Arguments.of("-5", new ClientUid.Invalid("-5")),
                Arguments.of(" 1000", new ClientUid.Invalid(" 1000")),
                Arguments.of("", new ClientUid.Invalid("")),
                Arguments.of("root", new ClientUid.Invalid("root")),
                Arguments.of("99999999999", new ClientUid.Invalid("99999999999")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("parse")
    void parse_annotationText(String text, ClientUid expected) {
        assertThat(ClientUid.parse(text)).isEqualTo(expected);
    }

    private static Case ok(String name, PodB p, ClientUid own) { return new Case(name, p.view(), Tenancy.STRICT, own, false, List.of()); }

    private static Case bad(String name, PodB p, ClientUid own, String says) { return new Case(name, p.view(), Tenancy.STRICT, own, false, List.of(says)); }

    /** A shared-GPU pod of team-a; without containers given, one "main" asking 4 GiB that sets no UID of its own. */
    private static PodB gpu(CB... cs) {
        PodB p = new PodB();
        if (cs.length == 0) p.c(c("main").mem("4"));
        for (CB c : cs) p.c(c);
        return p;
    }

    private static CB c(String name) { return new CB(name); }
}
