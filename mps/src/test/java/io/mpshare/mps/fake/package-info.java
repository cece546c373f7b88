/**
 * In-memory stand-ins for the MPS control daemon: {@link io.mpshare.mps.fake.FakeMpsControl} (the
 * control language, servers, clients, limits; can crash and restart) and
 * {@link io.mpshare.mps.fake.FakeDaemonLauncher} (a "started" daemon that drives the fake). For tests
 * here and in the device plugin; nothing here starts a process.
 */
package io.mpshare.mps.fake;
