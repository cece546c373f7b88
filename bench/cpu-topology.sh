# shellcheck shell=bash
# Sourced by the bench scripts that pin servers and load generators to CPUs (run-quiet.sh, run-k8s-scale.sh): which
# physical core each CPU is, from sysfs. Two CPUs of one core are its hyperthreads and share its execution units, so
# "two server cores" are two CPUs of different cores, and a generator pinned "away from the servers" must not share a
# core with them either. SYSFS_CPU overrides /sys/devices/system/cpu (for a test); where the kernel does not say, a
# CPU's core reads "?:?" and no warning is given.
SYSFS_CPU=${SYSFS_CPU:-/sys/devices/system/cpu}

# The CPUs of a list such as 0,1 or 2-5, one per line.
cpu_list() { local part parts; IFS=',' read -ra parts <<< "$1"; for part in "${parts[@]}"; do
  if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi; done; }

# The physical core of a CPU as package:core.
core_of() { local t="$SYSFS_CPU/cpu$1/topology"; echo "$(cat "$t/physical_package_id" 2>/dev/null || echo '?'):$(cat "$t/core_id" 2>/dev/null || echo '?')"; }

# How many physical cores the CPUs of a list are.
cores_in() { local c; for c in $(cpu_list "$1"); do core_of "$c"; done | sort -u | wc -l; }

# Whether the kernel says which core a CPU is.
topology_known() { [ "$(core_of "$(cpu_list "$1" | head -1)")" != "?:?" ]; }

# The physical cores two CPU lists both use, space-separated (empty: none).
shared_cores() { comm -12 <(for c in $(cpu_list "$1"); do core_of "$c"; done | sort -u) \
  <(for c in $(cpu_list "$2"); do core_of "$c"; done | sort -u) | xargs; }

# The first CPU of each of N physical cores in turn, comma-separated (fewer when the machine has fewer cores).
cpus_of_cores() { local c k seen='' pick='' n=0; for c in $(seq 0 $(($(nproc) - 1))); do
  k=$(core_of "$c"); case " $seen " in *" $k "*) continue ;; esac
  seen="$seen $k"; pick="${pick:+$pick,}$c"; n=$((n + 1)); [ "$n" -ge "$1" ] && break; done; echo "$pick"; }

# Warns (on stderr, prefixed with $1) when the servers' CPUs $2 are fewer cores than CPUs, or share a core with the
# load's CPUs $3.
warn_topology() {
  local who=$1 s=$2 l=$3 want shared
  topology_known "$s" || return 0
  want=$(cpu_list "$s" | wc -l)
  if [ "$(cores_in "$s")" -lt "$want" ]; then
    echo "$who: warning: server CPUs $s are hyperthreads of $(cores_in "$s") physical core(s), not $want cores; for separate cores set SERVER_CPUS=$(cpus_of_cores "$want")" >&2
  fi
  shared=$(shared_cores "$s" "$l")
  [ -z "$shared" ] || echo "$who: warning: the load's CPUs $l share physical cores ($shared, package:core) with the servers' $s: pin them to other cores" >&2
}
