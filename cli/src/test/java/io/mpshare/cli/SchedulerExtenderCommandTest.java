package io.mpshare.cli;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.scheduler.ExtenderConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SchedulerExtenderCommandTest {
    static Stream<Arguments> uidRuleFlags() {
        return Stream.of(
                Arguments.of(List.of(), true),
                Arguments.of(List.of("--uid-rule"), true),
                Arguments.of(List.of("--uid-rule=true"), true),
                Arguments.of(List.of("--uid-rule=false"), false),
                Arguments.of(List.of("--no-uid-rule"), false));
    }

    @ParameterizedTest
    @MethodSource("uidRuleFlags")
    void uidRule_flags_onByDefault(List<String> args, boolean expected) {
        SchedulerExtenderCommand cmd = new SchedulerExtenderCommand();
        new CommandLine(cmd).parseArgs(args.toArray(String[]::new));
        assertEquals(expected, cmd.uidRule, "uidRule after " + args);
    }

    private static SchedulerExtenderCommand parsed(String... args) {
        SchedulerExtenderCommand cmd = new SchedulerExtenderCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    /** The chart's extraArgs come after the flags it renders: a flag given again there wins, as for Kubernetes' components. */
    @Test
    void flagGivenTwice_theLastWins() {
        CommandLine cl = Main.commandLine("scheduler-extender");
        cl.parseArgs("scheduler-extender", "--shortlist=32", "--pick-in-filter=true", "--shortlist=0", "--no-pick-in-filter");
        ExtenderConfig c = ((SchedulerExtenderCommand) cl.getSubcommands().get("scheduler-extender").getCommand()).config();
        assertEquals(0, c.shortlist());
        assertFalse(c.pickInFilter());
        assertTrue(parsed().config().pickInFilter(), "on by default");
    }

    @Test
    void config_flags_becomeOneRecord() {
        ExtenderConfig c = parsed("--port=4000", "--gpu-mem-unit=MiB", "--hold-ttl=PT0S", "--recheck-nodes=3", "--scheduler-name=a,b",
                "--sync-timeout=PT20S", "--http-threads=3", "--policy=binpack").config();
        assertEquals(4000, c.port());
        assertEquals(MemoryUnit.MIB, c.unit());
        assertEquals(Duration.ZERO, c.holdTtl());
        assertEquals(3, c.recheckNodes());
        assertEquals(Set.of("a", "b"), c.schedulerNames());
        assertEquals(Duration.ofSeconds(20), c.syncTimeout());
        assertEquals(3, c.httpThreads());
        assertEquals("binpack", c.policy());
        assertEquals(Set.of(), parsed("--scheduler-name=*").config().schedulerNames(), "'*' accepts any scheduler");
        ExtenderConfig probes = parsed("--probe-port=4001", "--requeue-rate=0").config();
        assertEquals(4001, probes.probePort());
        assertEquals(0.0, probes.requeueRate(), "0 wakes no refused pod");
        assertEquals(ExtenderConfig.DEFAULT_REQUEUE_RATE, parsed().config().requeueRate());
        assertEquals(0, parsed().config().probePort(), "no probes' port unless asked");
    }

    /** The kind of unlabelled namespaces: tenant by default (the device plugin's too), any kind given, a bad one named in one line. */
    @Test
    void faultDomainDefault_tenantByDefault_badKindSaysWhatToWrite() {
        assertEquals(Kind.TENANT, parsed().config().faultDomainDefault());
        assertEquals(Kind.NODE, parsed("--fault-domain-default=node").config().faultDomainDefault());
        CliFailure e = assertThrows(CliFailure.class, () -> parsed("--fault-domain-default=team").config());
        assertEquals("--fault-domain-default must be tenant, pod or node, not 'team'", e.getMessage());
    }

    @Test
    void shortlist_defaultAFewDozen_zeroKeepsEveryNode_oneRefused() {
        assertEquals(ExtenderConfig.DEFAULT_SHORTLIST, parsed().config().shortlist());
        assertEquals(0, parsed("--shortlist=0").config().shortlist());
        assertEquals(100, parsed("--shortlist=100").config().shortlist());
        var one = assertThrows(IllegalArgumentException.class, () -> parsed("--shortlist=1").config());
        assertTrue(one.getMessage().contains("0 (every node that fits) or 2 to"), one.getMessage());
    }

    @Test
    void bindAttempts_deprecated_acceptedWithOneWarningAndHidden() {
        SchedulerExtenderCommand given = parsed("--bind-attempts=3");
        assertEquals(1, given.warnings().size());
        assertTrue(given.warnings().getFirst().contains("--bind-attempts is deprecated and has no effect"), given.warnings().getFirst());
        assertEquals(parsed().config(), given.config(), "no effect on the config");
        assertEquals(List.of(), parsed().warnings());
        assertFalse(new CommandLine(new SchedulerExtenderCommand()).getUsageMessage().contains("bind-attempts"), "not in --help");
    }
}
