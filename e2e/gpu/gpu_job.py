"""Workloads for run-suite.sh (host mode). Each prints one line per fact it checks; times are epoch seconds.

  cap NAME REQ_GIB HOLD_S      under `mpshare run --gpu-mem REQ`: allocate 0.9*REQ (must work), then 1 GiB more (must fail); hold; check usable
  hold NAME GIB HOLD_S         allocate GIB and keep using it for HOLD_S (a neighbour, or a no-MPS rogue)
  grab NAME GIB HOLD_S         allocate GIB (beyond the job's share, after raising its own env cap); write /tmp/e2e-NAME.t; keep using it
  group NAME N GIB HOLD_S      N processes each allocating GIB (each under the job's cap, together over it); /tmp/e2e-NAME.t once all hold
  rogue NAME GIB HOLD_S        outside MPS: /tmp/e2e-NAME.c just before its first CUDA call, allocate GIB at once, /tmp/e2e-NAME.t; keep using it
  matmul N START_AT SECONDS    warm up, wait for START_AT, loop an NxN fp32 matmul for SECONDS; print iterations per second
"""
import os
import sys
import time

import torch

GiB = 2**30


def say(*a):
    print(*a, flush=True)


def sees(name):
    free, total = torch.cuda.mem_get_info()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    say(f"{name} pid {os.getpid()} sees free {free / GiB:.2f} GiB, {sms} SMs, limit env {os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '-')}")
    return free


def use(t, seconds):
    end = time.time() + seconds
    while time.time() < end:
        t.add_(1)
        torch.cuda.synchronize()
        time.sleep(0.05)


def cap(name, req, hold):
    sees(name)
    ok = True
    try:
        x = torch.empty(int(0.9 * req * GiB), dtype=torch.uint8, device="cuda")
        x.fill_(1)
        torch.cuda.synchronize()
        say(f"{name} WITHIN {0.9 * req:.1f} GiB: ok")
    except RuntimeError as e:
        say(f"{name} WITHIN {0.9 * req:.1f} GiB: FAILED {str(e).splitlines()[0][:80]}")
        return 1
    more = 0.1 * req + 1  # to REQ + 1 GiB in all
    try:
        y = torch.empty(int(more * GiB), dtype=torch.uint8, device="cuda")
        y.fill_(1)
        torch.cuda.synchronize()
        say(f"{name} BEYOND +{more:.1f} GiB ({req + 1:.0f} GiB in all): allocated (cap NOT enforced)")
        ok = False
    except RuntimeError as e:
        say(f"{name} BEYOND +{more:.1f} GiB ({req + 1:.0f} GiB in all): failed as expected ({str(e).splitlines()[0][:60]})")
    use(x, hold)
    say(f"{name} DONE usable")
    return 0 if ok else 2


def mark(name, ext):
    """Writes the time now to /tmp/e2e-NAME.EXT (.t: the memory is held; .c: the first CUDA call comes next)."""
    with open(f"/tmp/e2e-{name}.{ext}", "w") as f:
        f.write(f"{time.time():.3f}")


def holding(name, x, secs, what):
    mark(name, "t")
    say(f"{name} {what}holds {x.numel() / GiB:g} GiB at {time.time():.3f}")
    use(x, secs)
    say(f"{name} DONE usable")
    return 0


def hold(name, gib, secs):
    sees(name)
    return holding(name, torch.empty(int(gib * GiB), dtype=torch.uint8, device="cuda"), secs, "")


def rogue(name, gib, secs):
    with open("/proc/self/cmdline", "rb") as f:
        argv0 = f.read().split(b"\0")[0].decode(errors="replace")
    mark(name, "c")
    x = torch.empty(int(gib * GiB), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    return holding(name, x, secs, f"pid {os.getpid()} argv0 {argv0} (MPS pipe env {os.environ.get('CUDA_MPS_PIPE_DIRECTORY', '-')}) ")


def group(name, n, gib, secs):
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    ps = [ctx.Process(target=hold, args=(f"{name}-{i}", gib, secs)) for i in range(n)]
    for p in ps:
        p.start()
    while not all(os.path.exists(f"/tmp/e2e-{name}-{i}.t") for i in range(n)):
        if not any(p.is_alive() for p in ps):
            break
        time.sleep(0.02)
    mark(name, "t")
    say(f"{name}: all {n} hold {gib} GiB at {time.time():.3f}")
    for p in ps:
        p.join()
    codes = [p.exitcode for p in ps]
    say(f"{name}: exit codes {codes}")
    return 0 if all(c == 0 for c in codes) else 3


def matmul(n, start_at, secs):
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    c = torch.empty(n, n, device="cuda")
    for _ in range(20):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    late = time.time() - start_at
    while time.time() < start_at:
        time.sleep(0.005)
    it = 0
    t0 = time.time()
    end = t0 + secs
    while True:
        for _ in range(50):
            torch.mm(a, b, out=c)
        torch.cuda.synchronize()
        it += 50
        if time.time() >= end:
            break
    dt = time.time() - t0
    say(f"MATMUL n={n} it_per_s={it / dt:.1f} late_s={max(0.0, late):.2f}")
    return 0


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "cap":
        sys.exit(cap(args[0], float(args[1]), float(args[2])))
    if kind in ("hold", "grab"):
        sys.exit(hold(args[0], float(args[1]), float(args[2])))
    if kind == "rogue":
        sys.exit(rogue(args[0], float(args[1]), float(args[2])))
    if kind == "group":
        sys.exit(group(args[0], int(args[1]), float(args[2]), float(args[3])))
    if kind == "sees":
        sees(args[0])
        sys.exit(0)
    if kind == "matmul":
        sys.exit(matmul(int(args[0]), float(args[1]), float(args[2])))
    sys.exit(f"unknown kind {kind}")
