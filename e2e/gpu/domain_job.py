"""Workloads for domains-check.sh, each one fact a line with epoch times (@t), run as a pod's container.

usage: python3 domain_job.py sms NAME                     the SMs and free memory this client sees, then exit
       python3 domain_job.py work NAME SECONDS            compute (512x512 fp32 products) for SECONDS: "DONE ok", or "ERROR ..." and stay
                                                          alive 30 s as a neighbour that catches the error would (only a kill ends it sooner)
       python3 domain_job.py fault NAME DELAY             compute, then after DELAY s write to an illegal address (a PTX kernel through the
                                                          driver API): "FAULT launch @t", "FAULT error ... @t"; then stay alive 30 s
       python3 domain_job.py late NAME TRIGGER            import torch, wait for the file TRIGGER, then init CUDA and compute: "COMPUTE ok @t"
       python3 domain_job.py hold NAME N SECONDS          open N connections on $CUDA_MPS_PIPE_DIRECTORY/control (SOCK_SEQPACKET) and hold them
"""
import ctypes
import os
import socket
import sys
import time


def say(*a):
    print(f"job {sys.argv[2]}", *a, f"@{time.time():.3f}", flush=True)


def first_line(e):
    return str(e).splitlines()[0][:120] if str(e) else type(e).__name__


def linger():
    time.sleep(30)  # a process that caught the error and stays: the server stays closed until it exits (measured)


PTX = b"""
.version 7.0
.target sm_70
.address_size 64
.visible .entry boom(.param .u64 p)
{
  .reg .u64 %rd<2>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [p];
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd1], %f1;
  ret;
}
"""


def illegal_write():
    """A kernel that stores to an unmapped device address: cudaErrorIllegalAddress, Xid 31 (as in the measured runs)."""
    cuda = ctypes.CDLL("libcuda.so.1")
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    rc = cuda.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(PTX))
    if rc:
        return f"cuModuleLoadData {rc}"
    rc = cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"boom")
    if rc:
        return f"cuModuleGetFunction {rc}"
    addr = ctypes.c_uint64(0xDEAD00000000)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(addr), ctypes.c_void_p))
    say("FAULT launch")
    rc = cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, params, None)
    rc2 = cuda.cuCtxSynchronize()
    return f"cuLaunchKernel {rc}, cuCtxSynchronize {rc2} (700 = illegal address)"


def main():
    mode, name = sys.argv[1], sys.argv[2]
    if mode == "hold":
        n, secs = int(sys.argv[3]), float(sys.argv[4])
        path = os.path.join(os.environ["CUDA_MPS_PIPE_DIRECTORY"], "control")
        held, err = [], ""
        for _ in range(n):
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                s.settimeout(2)
                s.connect(path)
                held.append(s)
            except OSError as e:
                err = first_line(e)
                break
        say(f"HOLDING {len(held)} of {n} connections on {path} as uid {os.getuid()} pid {os.getpid()}" + (f" (next: {err})" if err else ""))
        time.sleep(secs)
        for s in held:
            s.close()
        say("RELEASED")
        return 0
    import torch
    if mode == "late":
        trigger = sys.argv[3]
        say("READY torch imported, waiting for the trigger")
        end = time.time() + 240
        while not os.path.exists(trigger) and time.time() < end:
            time.sleep(0.02)
        say("TRIGGERED")
        try:
            x = torch.randn(1024, 1024, device="cuda")
            (x @ x).sum().item()
            say(f"COMPUTE ok, {torch.cuda.get_device_properties(0).multi_processor_count} SMs")
            return 0
        except Exception as e:
            say(f"COMPUTE FAIL {first_line(e)}")
            return 3
    try:
        free, total = torch.cuda.mem_get_info()
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        say(f"SEES {sms} SMs, free {free / 2**30:.2f} GiB, pid {os.getpid()} uid {os.getuid()}, "
            f"env threads {os.environ.get('CUDA_MPS_ACTIVE_THREAD_PERCENTAGE', '-')} mem {os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '-')}")
    except Exception as e:
        say(f"INIT FAIL {first_line(e)}")
        return 2
    if mode == "sms":
        return 0
    a = torch.randn(512, 512, device="cuda")
    if mode == "work":
        end, n = time.time() + float(sys.argv[3]), 0
        try:
            while time.time() < end:
                for _ in range(20):
                    a = torch.tanh(a @ a)
                torch.cuda.synchronize()
                n += 1
            say(f"DONE ok {n} rounds")
            return 0
        except Exception as e:
            say(f"ERROR {first_line(e)} after {n} rounds")
            linger()
            return 4
    if mode == "fault":
        (a @ a).sum().item()
        time.sleep(float(sys.argv[3]))
        try:
            say(f"FAULT error {illegal_write()}")
        except Exception as e:
            say(f"FAULT error {first_line(e)}")
        linger()
        return 5
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
