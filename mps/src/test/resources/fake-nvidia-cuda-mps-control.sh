#!/bin/sh
# A stand-in for nvidia-cuda-mps-control, answering as the real one does (FACTS.md): the control client
# exits 1 with "Cannot find MPS control daemon process" when no daemon runs, and 0 otherwise, errors included.
# State lives in files in $CUDA_MPS_PIPE_DIRECTORY: control (daemon up), servers, clients.<server>, default.<dev>, ...
P="$CUDA_MPS_PIPE_DIRECTORY"
if [ "$1" = "-f" ]; then            # foreground daemon: up until quit removes the control file, or a signal
  mkdir -p "$P"; echo "$CUDA_MPS_LOG_DIRECTORY $CUDA_VISIBLE_DEVICES" > "$P/daemon.env"; echo $$ > "$P/control"
  trap 'rm -f "$P/control"; exit 143' TERM
  while [ -e "$P/control" ]; do sleep 0.05; done
  exit 0
fi
read -r cmd a b c
[ -e "$P/stall" ] && [ "$cmd" != quit ] && sleep 30   # a daemon whose control socket is held: no answer
echo "$cmd${a:+ $a}${b:+ $b}${c:+ $c}" >> "$P/commands.log"
if ! { [ -e "$P/control" ] && kill -0 "$(cat "$P/control")" 2>/dev/null; }; then echo "Cannot find MPS control daemon process"; exit 1; fi
has_server() { grep -qx "$1" "$P/servers" 2>/dev/null; }
case "$cmd" in
  get_server_list) cat "$P/servers" 2>/dev/null ;;
  get_client_list) if has_server "$a"; then cat "$P/clients.$a" 2>/dev/null; else echo "Server $a not found"; fi ;;
  set_default_device_pinned_mem_limit)
    [ -e "$P/ignore-sets" ] && exit 0
    case "$b" in *[0-9][MG]) echo "$b" > "$P/default.$a" ;; esac ;;   # other values: says nothing, changes nothing
  get_default_device_pinned_mem_limit) cat "$P/default.$a" 2>/dev/null || echo 0 ;;
  set_device_pinned_mem_limit) if has_server "$a"; then echo "$c" > "$P/limit.$a.$b"; else echo "Server $a not found"; fi ;;
  get_device_pinned_mem_limit) if has_server "$a"; then cat "$P/limit.$a.$b" 2>/dev/null || echo 0; else echo "Server $a not found"; fi ;;
  set_default_active_thread_percentage) echo "$a.0" > "$P/threads" ;;
  get_default_active_thread_percentage) cat "$P/threads" 2>/dev/null || echo 100.0 ;;
  set_active_thread_percentage) if has_server "$a"; then echo "$b.0" > "$P/threads.$a"; else echo "Server $a not found"; fi ;;
  get_active_thread_percentage) if has_server "$a"; then cat "$P/threads.$a" 2>/dev/null || cat "$P/threads" 2>/dev/null || echo 100.0; else echo "Server $a not found"; fi ;;
  get_server_status) if has_server "$a"; then echo ACTIVE; else echo "Server $a not found"; fi ;;
  terminate_client) echo 0 ;;
  quit) rm -f "$P/control" ;;
  hang) sleep 30 ;;
  *) echo "Unknown command \"$cmd\"" ;;
esac
exit 0
