package io.mpshare.deviceplugin.policing;

import io.mpshare.core.Names;
import io.mpshare.mps.MpsBinary;
import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.ProcessMpsControl;
import io.mpshare.policing.MpsDaemons;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The control daemons of both MPS generations: the active colour's first, then the idle one's (during a blue/green
 * upgrade the old colour's clients are still running and only its daemon can end them). A colour whose control is
 * null (no daemon there) is left out.
 */
public final class ColourDaemons implements MpsDaemons {
    private static final Logger LOG = Logger.getLogger(ColourDaemons.class.getName());

    private final Supplier<String> activeColour;
    private final Function<String, MpsControl> controlForColour;

    public ColourDaemons(Supplier<String> activeColour, Function<String, MpsControl> controlForColour) {
        this.activeColour = activeColour;
        this.controlForColour = controlForColour;
    }

    @Override public List<MpsControl> daemons() {
        String active = activeColour.get();
        List<String> colours = new ArrayList<>(List.of(active));
        for (String c : List.of(Names.MPS_COLOUR_BLUE, Names.MPS_COLOUR_GREEN)) if (!colours.contains(c)) colours.add(c);
        List<MpsControl> out = new ArrayList<>();
        for (String c : colours) {
            MpsControl m = controlForColour.apply(c);
            if (m != null) out.add(m);
        }
        return out;
    }

    /**
     * Production: {@code nvidia-cuda-mps-control} on {@code <runDir>/<colour>/pipe} where that folder exists. When the
     * binary is not in the image, no daemon is known and the policer falls back to SIGKILL (logged once).
     */
    public static Function<String, MpsControl> processControls(Path runDir, Optional<Path> binary) {
        Map<String, MpsControl> cache = new ConcurrentHashMap<>();
        var located = new Object() { volatile Path bin; volatile boolean warned; };
        return colour -> {
            Path pipe = runDir.resolve(colour).resolve("pipe");
            if (!Files.isDirectory(pipe)) return null;
            if (located.bin == null) {
                try {
                    located.bin = MpsBinary.locate(binary);
                } catch (MpsException e) {
                    if (!located.warned) LOG.warning("policer: " + e.getMessage() + "; MPS clients will be SIGKILLed instead of terminate_client");
                    located.warned = true;
                    return null;
                }
            }
            return cache.computeIfAbsent(colour, c -> new ProcessMpsControl(
                    new ProcessMpsControl.Config(located.bin, pipe, runDir.resolve(c).resolve("log"), Duration.ofSeconds(2))));
        };
    }
}
