"""A tiny CUDA client for nvml-mps-check.sh: reports what it sees under MPS, allocates, holds, exits.

usage: python3 mps_client.py NAME HOLD_SECONDS [TRY_GIB]
Prints free/total memory and SM count as the client sees them, holds 1 GiB, tries TRY_GIB more
(expected to fail above the client's cap), writes /tmp/client-NAME.ready with its PID, sleeps.
"""
import os
import sys
import time

import torch

name, hold = sys.argv[1], float(sys.argv[2])
try_gib = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
free, total = torch.cuda.mem_get_info()
sms = torch.cuda.get_device_properties(0).multi_processor_count
print(f"client {name} pid {os.getpid()} sees free {free / 2**30:.2f} GiB of {total / 2**30:.2f} GiB, {sms} SMs "
      f"(limit env {os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '-')}, threads env {os.environ.get('CUDA_MPS_ACTIVE_THREAD_PERCENTAGE', '-')})",
      flush=True)
held = torch.ones(2**30, dtype=torch.uint8, device="cuda")
try:
    more = torch.ones(int(try_gib * 2**30), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    print(f"client {name} allocating {try_gib} GiB more: ok", flush=True)
    del more
except RuntimeError as e:
    print(f"client {name} allocating {try_gib} GiB more: failed ({str(e).splitlines()[0][:90]})", flush=True)
with open(f"/tmp/client-{name}.ready", "w") as f:
    f.write(str(os.getpid()))
time.sleep(hold)
try:
    held.add_(1)
    torch.cuda.synchronize()
    print(f"client {name} done, GPU still usable", flush=True)
except RuntimeError as e:
    print(f"client {name} failed after hold: {str(e).splitlines()[0][:120]}", flush=True)
    sys.exit(3)
