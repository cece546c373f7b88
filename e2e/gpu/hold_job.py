"""A framework job for the isolation suite: does a job that asked N GiB get to use N - 0.1 GiB and compute?

usage: python3 hold_job.py NAME REQ_GIB [HOLD_S]
Holds REQ - 0.1 GiB in tensors (a large one plus the matmul operands), runs fp32 matrix products through cuBLAS
(which allocates its workspace on first use), then asks 20 MiB more, then keeps computing for HOLD_S seconds.
One line per fact: HOLD ok|FAIL, COMPUTE ok|FAIL, MORE20 ok|FAIL, DONE ok|FAIL, with what the client saw free.
"""
import os
import sys
import time

import torch

GiB, MiB = 2**30, 2**20
name, req = sys.argv[1], float(sys.argv[2])
hold_s = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0


def say(*a):
    print(f"job {name}", *a, f"@{time.time():.3f}", flush=True)


def first_line(e):
    return str(e).splitlines()[0][:90]


free0, total = torch.cuda.mem_get_info()
say(f"pid {os.getpid()} uid {os.getuid()} sees free {free0 / GiB:.2f} GiB, limit env {os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '-')}")
n = 2048
operands = 3 * n * n * 4
try:
    big = torch.empty(int((req - 0.1) * GiB) - operands, dtype=torch.uint8, device="cuda")
    big.fill_(1)
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    c = torch.empty(n, n, device="cuda")
    torch.cuda.synchronize()
    say(f"HOLD ok {(req - 0.1):.1f} GiB held; free now {torch.cuda.mem_get_info()[0] / MiB:.0f} MiB")
except RuntimeError as e:
    say(f"HOLD FAIL {first_line(e)}")
    sys.exit(2)
try:
    for _ in range(50):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    say(f"COMPUTE ok 50 matmuls {n}x{n}; free now {torch.cuda.mem_get_info()[0] / MiB:.0f} MiB")
except RuntimeError as e:
    say(f"COMPUTE FAIL {first_line(e)}")
    sys.exit(3)
try:
    more = torch.ones(20 * MiB, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    say(f"MORE20 ok; free now {torch.cuda.mem_get_info()[0] / MiB:.0f} MiB")
except RuntimeError as e:
    say(f"MORE20 FAIL {first_line(e)}")
    sys.exit(4)
end = time.time() + hold_s
try:
    while time.time() < end:
        torch.mm(a, b, out=c)
        big.add_(1)
        torch.cuda.synchronize()
        time.sleep(0.05)
    say("DONE ok")
except RuntimeError as e:
    say(f"DONE FAIL {first_line(e)}")
    sys.exit(5)
