package io.mpshare.cli;

import picocli.CommandLine.IVersionProvider;

/** Version from the jar manifest (the Maven project version), "dev" when run from classes. */
public final class VersionProvider implements IVersionProvider {
    @Override public String[] getVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return new String[]{"mpshare " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
    }
}
