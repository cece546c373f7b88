/** Durable host state: the jobs file (written atomically) and process identity (PID + start time) to survive restarts and PID reuse. */
package io.mpshare.host.state;
