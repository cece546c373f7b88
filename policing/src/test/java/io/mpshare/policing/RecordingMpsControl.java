package io.mpshare.policing;

import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test double for one control daemon: servers with clients; records terminate_client; can be made to fail. */
final class RecordingMpsControl implements MpsControl {
    final Map<Long, List<Long>> servers = new LinkedHashMap<>();
    final List<String> commands = new ArrayList<>();
    boolean down;
    boolean failTerminate;

    RecordingMpsControl server(long serverPid, Long... clients) {
        servers.put(serverPid, new ArrayList<>(List.of(clients)));
        return this;
    }

    @Override public boolean daemonUp() { return !down; }

    @Override public List<Long> serverPids() {
        if (down) throw new MpsException("Cannot find MPS control daemon process");
        return List.copyOf(servers.keySet());
    }

    @Override public List<Long> clientPids(long serverPid) {
        if (down) throw new MpsException("Cannot find MPS control daemon process");
        return List.copyOf(servers.getOrDefault(serverPid, List.of()));
    }

    @Override public void setDefaultPinnedMemLimit(int device, long mib) { throw new UnsupportedOperationException(); }
    @Override public long defaultPinnedMemLimit(int device) { return -1; }
    @Override public void setServerPinnedMemLimit(long serverPid, int device, long mib) { throw new UnsupportedOperationException(); }
    @Override public void setDefaultActiveThreadPercentage(int percent) { throw new UnsupportedOperationException(); }

    @Override public void terminateClient(long serverPid, long clientPid) {
        if (failTerminate) throw new MpsException("Server " + serverPid + " not found");
        commands.add("terminate_client " + serverPid + " " + clientPid);
    }

    @Override public void quit() { commands.add("quit"); }
}
