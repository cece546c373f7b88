#!/usr/bin/env bash
# A process outside MPS that calls itself the MPS server (docs/security.md, "identity by PID"): through host mode's
# policer, a process holding 20 GiB with no MPS environment, started through a link named nvidia-cuda-mps-server, is
# SIGKILLed as fast as the same program started as python3 (the baseline, in the same run), while an MPS client job
# (the neighbour) keeps its real server. Prints, per variant, the time from its 20 GiB allocation to its end, and the
# real server's PID, parent and the daemon's PID from the supervisor's status.json (the policer's second rule: a server
# is a child of a reported daemon).
#   e2e/gpu/renamed-rogue.sh RUN_DIR HOST_LOG -- NEIGHBOUR_PREFIX...
# run-suite.sh calls it with `mpshare host` running (policer every 500 ms, --unmanaged police) and the prefix
# `java ... HostMain run --socket SOCK --gpu-mem 2 --`. Dry run without a GPU (stand-in python3 from e2e/gpu/dry, no
# policer: a stand-in SIGKILLs each holder 0.3 s after it "allocated"): DRY=1 e2e/gpu/renamed-rogue.sh /tmp/rr-run "" -- env
# At most about 60 s (each variant is cut off 20 s after it starts). Lines to read: RESULT ...
set -u
RUN=${1:?run dir}; HOSTLOG=${2:-}; shift 2; [ "${1:-}" = -- ] && shift
NB_PREFIX=("$@")
GIB=${GIB:-20}; HOLD=${HOLD:-10}; CUTOFF=${CUTOFF:-20}
PY=$(command -v python3); [ "${DRY:-0}" = 1 ] && PY=$PWD/e2e/gpu/dry/python3
W=$(mktemp -d /tmp/renamed.XXXXXX)
ln -s "$PY" "$W/nvidia-cuda-mps-server"
# Started through a link outside its folder, a venv's python3 would not find its venv (pyvenv.cfg is looked for beside
# the path it was started by): both variants get python3's own site-packages on PYTHONPATH, so they run the same program.
SITE=; [ "${DRY:-0}" = 1 ] || SITE=$("$PY" -c 'import site; print(":".join(site.getsitepackages()))' 2>/dev/null)
now() { date +%s.%N; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
secs() { python3 -c "print(f'{$1 - $2:.2f}')"; }
result() { echo "RESULT $1 | $2 | $3"; }
servers() { # the real servers and the daemon, from the supervisor's status.json
  local st=$RUN/blue/status.json
  [ -f "$st" ] || { echo "no $st"; return; }
  python3 - "$st" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = s.get("daemonPid")
out = []
for srv in s.get("servers", []):
    pid = srv["pid"]
    try:
        ppid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
    except OSError:
        ppid = "gone"
    out.append(f"server {pid} parent {ppid} ({'the daemon' if str(d) == ppid else 'NOT the daemon'})")
print(f"daemon {d}; " + ("; ".join(out) if out else "no server listed"))
PY
}

one() { # one LABEL EXECUTABLE: a 20 GiB holder outside MPS; prints how it ended
  local label=$1 exe=$2 name=rr-$1
  rm -f /tmp/e2e-$name.c /tmp/e2e-$name.t
  env -u CUDA_MPS_PIPE_DIRECTORY -u CUDA_MPS_PINNED_DEVICE_MEM_LIMIT -u CUDA_MPS_LOG_DIRECTORY PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" \
    "$exe" e2e/gpu/gpu_job.py rogue "$name" "$GIB" "$HOLD" > "$W/$name.log" 2>&1 &
  local pid=$! t0 end rc how
  t0=$(ms)
  # dry run: a stand-in for the policer SIGKILLs the holder 0.3 s after it "allocated", so the measuring is exercised
  [ "${DRY:-0}" = 1 ] && ( for i in $(seq 1 100); do [ -f /tmp/e2e-$name.t ] && break; sleep 0.05; done; sleep 0.3; kill -9 "$pid" 2>/dev/null ) &
  sleep 0.2; echo "$label: pid $pid, argv0 $(tr '\0' '\n' < /proc/$pid/cmdline 2>/dev/null | head -1), comm $(cat /proc/$pid/comm 2>/dev/null)"
  while kill -0 "$pid" 2>/dev/null && [ $(( $(ms) - t0 )) -lt $(( CUTOFF * 1000 )) ]; do sleep 0.05; done
  end=$(now)
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; wait "$pid" 2>/dev/null; how="NOT killed: still running ${CUTOFF} s after start (ended by this script)"
  else
    wait "$pid"; rc=$?
    if [ -f /tmp/e2e-$name.t ]; then how="$(secs "$end" "$(cat /tmp/e2e-$name.t)") s from its $GIB GiB allocation to its end"
    elif [ -f /tmp/e2e-$name.c ]; then how="ended before its allocation completed, $(secs "$end" "$(cat /tmp/e2e-$name.c)") s after its first CUDA call"
    else how="ended before its first CUDA call"; fi
    case $rc in 137) how="killed (SIGKILL), $how";; 0) how="NOT killed: exit 0 after holding ${HOLD} s, $how";; *) how="exit $rc, $how";; esac
  fi
  cat "$W/$name.log" | tail -3 | sed "s/^/  $label> /"
  [ -n "$HOSTLOG" ] && grep -E "process $pid |pid $pid[ ,)]" "$HOSTLOG" | tail -2 | sed "s/^/  host> /"
  result "$label" "${how%%,*}" "$how"
}

echo "=== renamed-rogue: $GIB GiB outside MPS as python3, then as nvidia-cuda-mps-server ($W)"
rm -f /tmp/e2e-rr-nb.t
"${NB_PREFIX[@]}" "$PY" e2e/gpu/gpu_job.py hold rr-nb 1 25 > "$W/nb.log" 2>&1 & NB=$!
for i in $(seq 1 200); do [ -f /tmp/e2e-rr-nb.t ] && break; kill -0 $NB 2>/dev/null || break; sleep 0.1; done
echo "neighbour (MPS client job): $(tail -1 "$W/nb.log")"
BEFORE=$(servers); echo "before: $BEFORE"
one python3 "$PY"
one renamed "$W/nvidia-cuda-mps-server"
AFTER=$(servers); echo "after: $AFTER"
for p in $(echo "$BEFORE" | grep -oE 'server [0-9]+' | cut -d' ' -f2); do
  result "real server $p" "$(kill -0 "$p" 2>/dev/null && echo alive || echo GONE)" "$BEFORE"
done
wait $NB; rc=$?; result "neighbour MPS job" "exit $rc" "$(grep -c 'DONE usable' "$W/nb.log") DONE usable"
rm -rf "$W"
