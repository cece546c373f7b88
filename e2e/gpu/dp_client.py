"""A CUDA client for deviceplugin-check.sh, started inside its own namespaces with Allocate's env.

usage: python3 dp_client.py NAME REQUEST_GIB HOLD_SECONDS
Prints the MPS env it got, free/total memory and SM count as it sees them; allocates 0.9 x REQUEST (must fit), then
REQUEST x 0.1 + 1 GiB more (1 GiB past the request in all: must fail under the cap); writes /tmp/dp-NAME.ready,
holds HOLD seconds, then checks the GPU is still usable. One line per fact, prefixed "client NAME".
"""
import os
import sys
import time

import torch

name, req, hold = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
GiB = 2**30
say = lambda s: print(f"client {name} {s}", flush=True)
env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(("CUDA_", "NVIDIA_", "MPSHARE_"))}
say(f"pid(ns) {os.getpid()} env {env}")
free, total = torch.cuda.mem_get_info()
sms = torch.cuda.get_device_properties(0).multi_processor_count
say(f"FREE {free / GiB:.2f} GiB of {total / GiB:.2f} GiB, SMS {sms}")
try:
    a = torch.ones(int(0.9 * req * GiB), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    say(f"FIT 0.9 x request ({0.9 * req:.2f} GiB): ok")
except RuntimeError as e:
    a = None
    say(f"FIT 0.9 x request ({0.9 * req:.2f} GiB): failed ({str(e).splitlines()[0][:90]})")
try:
    b = torch.ones(int((0.1 * req + 1) * GiB), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    say(f"BEYOND request + 1 GiB in all: ok (NOT capped)")
    del b
except RuntimeError as e:
    say(f"BEYOND request + 1 GiB in all: failed ({str(e).splitlines()[0][:90]})")
with open(f"/tmp/dp-{name}.ready", "w") as f:
    f.write(str(os.getpid()))
time.sleep(hold)
try:
    x = torch.ones(1024, device="cuda").sum().item()
    say("DONE GPU still usable")
except RuntimeError as e:
    say(f"DONE failed after hold: {str(e).splitlines()[0][:120]}")
    sys.exit(3)
