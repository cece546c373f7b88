"""Trains a two-layer perceptron on MNIST-shaped data on the GPU, through the CUDA driver API (ctypes, libcuda.so.1).

The node tier's stand-in for the program of the seed's image (gpushare-sample:tensorflow-1.5 runs
tensorflow-sample-code/tfjob/docker/mnist/main.py): the image is built on the GPU machine from what it has, so it
carries no TensorFlow and no CUDA toolkit, only Python and this file with its kernels as PTX (kernels.cu beside it,
compiled by node-tier.sh); libcuda.so.1 comes from the driver files the device plugin mounts. No network either, so
the 60,000 examples are synthetic (kernels.cu, make_data) and --data_dir is not read.

What it prints, one line each, for node-tier.sh to read: the device and the memory it sees free at start (under MPS:
its cap less the context), a check of the GPU's forward pass against the same arithmetic on the CPU, then every
--log_every_s seconds the step, the loss and accuracy of the last batch and the steps per second. A CUDA error (an
MPS client terminated by the policer, say) ends it with one 'error:' line naming the call, and exit code 1.

Options beyond the seed's (--max_steps, --data_dir) are for the tier's other pods: --cap_probe (allocate all it sees
free, then 1 GiB more), --grab_gib (hold that much more than the model needs), --mps_limit (set
CUDA_MPS_PINNED_DEVICE_MEM_LIMIT before CUDA starts: a program raising its own cap).
"""
import argparse
import array
import ctypes
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PIXELS, CLASSES = 784, 10
GIB = 1 << 30
MULTIPROCESSOR_COUNT = 16
JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 5, 6


def say(*parts):
    print(*parts, flush=True)


class CudaError(Exception):
    def __init__(self, call, code, name, text):
        super().__init__(f"{call}: {name} ({text})")
        self.code, self.name = code, name


class Dev:
    """A device allocation: its address and size in bytes."""
    def __init__(self, ptr, size):
        self.ptr, self.size = ptr, size


class U32(int):
    """A kernel argument passed as unsigned int."""


class Cuda:
    """The driver API calls main.py makes, each checked: a non-zero result raises CudaError with the error's name."""

    def __init__(self, lib="libcuda.so.1"):
        c, u64, sz, vp, ip = ctypes, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int
        self.lib = lib = ctypes.CDLL(lib)
        sigs = {
            "cuInit": [c.c_uint], "cuDriverGetVersion": [c.POINTER(ip)], "cuDeviceGetCount": [c.POINTER(ip)],
            "cuDeviceGet": [c.POINTER(ip), ip], "cuDeviceGetName": [c.c_char_p, ip, ip],
            "cuDeviceTotalMem_v2": [c.POINTER(sz), ip], "cuDeviceGetAttribute": [c.POINTER(ip), ip, ip],
            "cuDevicePrimaryCtxRetain": [c.POINTER(vp), ip], "cuCtxSetCurrent": [vp], "cuCtxSynchronize": [],
            "cuMemGetInfo_v2": [c.POINTER(sz), c.POINTER(sz)], "cuMemAlloc_v2": [c.POINTER(u64), sz],
            "cuMemFree_v2": [u64], "cuMemsetD8_v2": [u64, c.c_ubyte, sz], "cuMemcpyHtoD_v2": [u64, vp, sz],
            "cuMemcpyDtoH_v2": [vp, u64, sz], "cuModuleLoadDataEx": [c.POINTER(vp), c.c_char_p, c.c_uint, c.POINTER(ip), c.POINTER(vp)],
            "cuModuleGetFunction": [c.POINTER(vp), vp, c.c_char_p],
            "cuLaunchKernel": [vp, c.c_uint, c.c_uint, c.c_uint, c.c_uint, c.c_uint, c.c_uint, c.c_uint, vp, c.POINTER(vp), c.POINTER(vp)],
            "cuGetErrorName": [ip, c.POINTER(c.c_char_p)], "cuGetErrorString": [ip, c.POINTER(c.c_char_p)],
        }
        for name, args in sigs.items():
            f = getattr(lib, name)
            f.argtypes, f.restype = args, ip

    def call(self, name, *args):
        r = getattr(self.lib, name)(*args)
        if r != 0:
            raise CudaError(name, r, self.text("cuGetErrorName", r), self.text("cuGetErrorString", r))

    def text(self, fn, code):
        s = ctypes.c_char_p()
        return s.value.decode() if getattr(self.lib, fn)(code, ctypes.byref(s)) == 0 and s.value else f"error {code}"

    def start(self):
        """cuInit and the primary context of device 0: (name, multiprocessors, driver version, total bytes)."""
        self.call("cuInit", 0)
        n, dev, v, sms = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self.call("cuDeviceGetCount", ctypes.byref(n))
        self.call("cuDeviceGet", ctypes.byref(dev), 0)
        name = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", name, 256, dev)
        total = ctypes.c_size_t()
        self.call("cuDeviceTotalMem_v2", ctypes.byref(total), dev)
        self.call("cuDriverGetVersion", ctypes.byref(v))
        ctx = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        self.call("cuCtxSetCurrent", ctx)
        self.call("cuDeviceGetAttribute", ctypes.byref(sms), MULTIPROCESSOR_COUNT, dev)
        return name.value.decode(), sms.value, v.value, total.value

    def mem_info(self):
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self.call("cuMemGetInfo_v2", ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value

    def alloc(self, size):
        p = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(p), size)
        return Dev(p.value, size)

    def free(self, d):
        self.call("cuMemFree_v2", d.ptr)

    def to_device(self, d, data):
        self.call("cuMemcpyHtoD_v2", d.ptr, (ctypes.c_char * len(data)).from_buffer(data), len(data))

    def floats(self, d, count, offset=0):
        out = array.array("f", bytes(4 * count))
        self.call("cuMemcpyDtoH_v2", out.buffer_info()[0], d.ptr + 4 * offset, 4 * count)
        return out

    def ints(self, d, count):
        out = array.array("i", bytes(4 * count))
        self.call("cuMemcpyDtoH_v2", out.buffer_info()[0], d.ptr, 4 * count)
        return out

    def module(self, ptx):
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log)))
        m = ctypes.c_void_p()
        try:
            self.call("cuModuleLoadDataEx", ctypes.byref(m), ptx, 2, opts, vals)
        except CudaError as e:
            raise CudaError("cuModuleLoadDataEx", e.code, e.name, log.value.decode(errors="replace").strip() or "no JIT log") from None
        return m

    def function(self, module, name):
        f = ctypes.c_void_p()
        self.call("cuModuleGetFunction", ctypes.byref(f), module, name.encode())
        return f


class Launch:
    """One kernel launch over n threads with its arguments packed once; set(i, v) changes an integer argument."""
    BLOCK = 256

    def __init__(self, cuda, fn, n, *args):
        self.cuda, self.fn, self.grid = cuda, fn, (n + self.BLOCK - 1) // self.BLOCK
        self.values = []
        for a in args:
            if isinstance(a, Dev):
                self.values.append(ctypes.c_uint64(a.ptr))
            elif a is None:
                self.values.append(ctypes.c_uint64(0))
            elif isinstance(a, U32):
                self.values.append(ctypes.c_uint(a))
            elif isinstance(a, int):
                self.values.append(ctypes.c_int(a))
            else:
                self.values.append(ctypes.c_float(a))
        self.params = (ctypes.c_void_p * len(self.values))(*[ctypes.addressof(v) for v in self.values])

    def set(self, i, value):
        self.values[i].value = value

    def __call__(self):
        self.cuda.call("cuLaunchKernel", self.fn, self.grid, 1, 1, self.BLOCK, 1, 1, 0, None, self.params, None)


class Model:
    """Examples, the two layers' weights, activations and gradients on the GPU; one SGD step is a fixed list of launches."""

    def __init__(self, cuda, module, a):
        self.cuda, self.a = cuda, a
        k = {name: cuda.function(module, name) for name in
             ("make_data", "init_uniform", "gather", "gemm", "softmax_xent", "relu_backward", "col_sum", "sgd")}
        self.kernels = k
        n, b, h = a.examples, a.batch_size, a.hidden
        f = lambda count: cuda.alloc(4 * count)
        self.x, self.y = f(n * PIXELS), f(n)
        self.w1, self.b1, self.w2, self.b2 = f(PIXELS * h), f(h), f(h * CLASSES), f(CLASSES)
        self.xb, self.yb, self.h, self.z = f(b * PIXELS), f(b), f(b * h), f(b * CLASSES)
        self.dz, self.loss, self.correct = f(b * CLASSES), f(b), f(b)
        self.dh, self.dw1, self.db1, self.dw2, self.db2 = f(b * h), f(PIXELS * h), f(h), f(h * CLASSES), f(CLASSES)
        Launch(cuda, k["make_data"], n * PIXELS, self.x, self.y, n, U32(20260101))()
        Launch(cuda, k["init_uniform"], PIXELS * h, self.w1, PIXELS * h, U32(11), math.sqrt(6.0 / (PIXELS + h)))()
        Launch(cuda, k["init_uniform"], h * CLASSES, self.w2, h * CLASSES, U32(12), math.sqrt(6.0 / (h + CLASSES)))()
        cuda.to_device(self.b1, bytearray(4 * h))
        cuda.to_device(self.b2, bytearray(4 * CLASSES))
        lr = a.learning_rate
        self.gather = Launch(cuda, k["gather"], b * PIXELS, self.x, self.y, self.xb, self.yb, n, 0, b)
        self.forward = [
            self.gather,
            Launch(cuda, k["gemm"], b * h, self.xb, self.w1, self.b1, self.h, b, h, PIXELS, 0, 0, 1),
            Launch(cuda, k["gemm"], b * CLASSES, self.h, self.w2, self.b2, self.z, b, CLASSES, h, 0, 0, 0),
            Launch(cuda, k["softmax_xent"], b, self.z, self.yb, self.dz, self.loss, self.correct, b),
        ]
        self.backward = [
            Launch(cuda, k["gemm"], h * CLASSES, self.h, self.dz, None, self.dw2, h, CLASSES, b, 1, 0, 0),
            Launch(cuda, k["col_sum"], CLASSES, self.dz, self.db2, b, CLASSES),
            Launch(cuda, k["gemm"], b * h, self.dz, self.w2, None, self.dh, b, h, CLASSES, 0, 1, 0),
            Launch(cuda, k["relu_backward"], b * h, self.dh, self.h, b * h),
            Launch(cuda, k["gemm"], PIXELS * h, self.xb, self.dh, None, self.dw1, PIXELS, h, b, 1, 0, 0),
            Launch(cuda, k["col_sum"], h, self.dh, self.db1, b, h),
            Launch(cuda, k["sgd"], PIXELS * h, self.w1, self.dw1, PIXELS * h, lr),
            Launch(cuda, k["sgd"], h, self.b1, self.db1, h, lr),
            Launch(cuda, k["sgd"], h * CLASSES, self.w2, self.dw2, h * CLASSES, lr),
            Launch(cuda, k["sgd"], CLASSES, self.b2, self.db2, CLASSES, lr),
        ]

    def step(self, i):
        self.gather.set(5, (i * self.a.batch_size) % self.a.examples)
        for launch in self.forward + self.backward:
            launch()

    def fault(self):
        """Writes to an address no allocation holds (make_data aimed at 0xdead00000000) and waits: the GPU faults
        (Xid 31, CUDA_ERROR_ILLEGAL_ADDRESS), which under MPS ends every client of the same server."""
        Launch(self.cuda, self.kernels["make_data"], 1024 * PIXELS, Dev(0xDEAD00000000, 4), self.y, 1024, U32(1))()
        self.cuda.call("cuCtxSynchronize")

    def batch_result(self):
        """Mean loss and accuracy of the last batch (copies back, so it waits for the GPU)."""
        b = self.a.batch_size
        loss, correct = self.cuda.floats(self.loss, b), self.cuda.ints(self.correct, b)
        return sum(loss) / b, sum(correct) / b

    def check(self, rows=2, cols=64):
        """The forward pass of batch 0 on the GPU against the same arithmetic done here (hidden units, logits, loss):
        the worst relative error, the number of distinct labels among the first 1000 examples, and batch 0's mean loss
        and accuracy (the model before training)."""
        c, h = self.cuda, self.a.hidden
        self.gather.set(5, 0)
        for launch in self.forward:
            launch()
        xb, w1, b1 = c.floats(self.xb, rows * PIXELS), c.floats(self.w1, PIXELS * h), c.floats(self.b1, h)
        hid, w2, b2 = c.floats(self.h, rows * h), c.floats(self.w2, h * CLASSES), c.floats(self.b2, CLASSES)
        z, loss, yb = c.floats(self.z, rows * CLASSES), c.floats(self.loss, rows), c.ints(self.yb, rows)
        worst = 0.0
        def near(got, want):
            nonlocal worst
            worst = max(worst, abs(got - want) / (1.0 + abs(want)))
        for r in range(rows):
            for j in range(0, h, max(1, h // cols)):
                s = b1[j] + sum(xb[r * PIXELS + k] * w1[k * h + j] for k in range(PIXELS))
                near(hid[r * h + j], max(0.0, s))
            logits = [b2[cl] + sum(hid[r * h + j] * w2[j * CLASSES + cl] for j in range(h)) for cl in range(CLASSES)]
            for cl in range(CLASSES):
                near(z[r * CLASSES + cl], logits[cl])
            top = max(logits)
            near(loss[r], math.log(sum(math.exp(v - top) for v in logits)) - (logits[yb[r]] - top))
        labels = c.ints(self.y, min(self.a.examples, 1000))
        return worst, len(set(labels)), self.batch_result()


def parse(argv):
    env = os.environ.get
    p = argparse.ArgumentParser(description="MNIST-shaped training on the GPU through the CUDA driver API")
    p.add_argument("--max_steps", type=int, default=100000)
    p.add_argument("--data_dir", default="/tmp/tensorflow/mnist/input_data", help="not read: the examples are synthetic")
    p.add_argument("--batch_size", type=int, default=int(env("MNIST_BATCH", "512")))
    p.add_argument("--hidden", type=int, default=int(env("MNIST_HIDDEN", "8192")))
    p.add_argument("--examples", type=int, default=int(env("MNIST_EXAMPLES", "60000")))
    p.add_argument("--learning_rate", type=float, default=0.05)
    p.add_argument("--log_every_s", type=float, default=2.0)
    p.add_argument("--cap_probe", action="store_true", help="allocate all that is free less 256 MiB, then 1 GiB more, and say what happened")
    p.add_argument("--grab_gib", type=float, default=0.0, help="hold this much GPU memory beyond the model while training")
    p.add_argument("--fault_at_step", type=int, default=0, help="at this step, write to an illegal address (a faulting kernel)")
    p.add_argument("--mps_limit", default="", help="set CUDA_MPS_PINNED_DEVICE_MEM_LIMIT to this before CUDA starts")
    return p.parse_args(argv)


def cap_probe(cuda):
    free, _ = cuda.mem_info()
    want = free - 256 * (1 << 20)
    held = cuda.alloc(want)
    try:
        more = cuda.alloc(GIB)
        cuda.free(more)
        outcome = "allocated (no cap in force)"
    except CudaError as e:
        outcome = f"{e.name} (refused)"
    cuda.free(held)
    say(f"cap probe: holding {want / GIB:.2f} GiB: ok; 1 GiB more: {outcome}")


def main(argv):
    a = parse(argv)
    t0 = time.time()
    if a.mps_limit:
        say(f"environment: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT {os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '(unset)')} -> {a.mps_limit}, set by the program")
        os.environ["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = a.mps_limit
    say(f"environment: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT={os.environ.get('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT', '')} "
        f"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE={os.environ.get('CUDA_MPS_ACTIVE_THREAD_PERCENTAGE', '')} "
        f"CUDA_MPS_PIPE_DIRECTORY={os.environ.get('CUDA_MPS_PIPE_DIRECTORY', '')} uid={os.getuid()} pid={os.getpid()}")
    step = 0
    try:
        cuda = Cuda()
        name, sms, version, total = cuda.start()
        free, _ = cuda.mem_info()
        say(f"device: {name}, {sms} SMs, driver API {version}, total {total / GIB:.2f} GiB")
        say(f"memory: free {free / GIB:.2f} GiB of {total / GIB:.2f} GiB at start")
        with open(os.path.join(HERE, "kernels.ptx"), "rb") as f:
            module = cuda.module(f.read() + b"\0")
        model = Model(cuda, module, a)
        say(f"data: {a.examples} synthetic MNIST-shaped examples made on the GPU ({a.data_dir} is not read: no network); "
            f"model {PIXELS}-{a.hidden}-{CLASSES}, batch {a.batch_size}, learning rate {a.learning_rate}")
        worst, spread, (loss, acc) = model.check()
        say(f"check: GPU forward pass against the CPU: worst relative error {worst:.2e} ({'ok' if worst < 1e-3 else 'FAIL'}); "
            f"{spread} labels seen")
        say(f"step 0 loss {loss:.4f} accuracy {acc:.3f} at {time.time():.3f}")
        if a.cap_probe:
            cap_probe(cuda)
        grabbed = None
        if a.grab_gib > 0:
            grabbed = cuda.alloc(int(a.grab_gib * GIB))
            cuda.call("cuMemsetD8_v2", grabbed.ptr, 1, grabbed.size)
            cuda.call("cuCtxSynchronize")
            say(f"grab: holding {a.grab_gib:.2f} GiB beyond the model at {time.time():.3f}")
        free, _ = cuda.mem_info()
        say(f"memory: free {free / GIB:.2f} GiB while training")
        last_t, last_step = time.time(), 0
        for step in range(1, a.max_steps + 1):
            model.step(step - 1)
            if step == a.fault_at_step:
                say(f"fault: writing to an illegal address at step {step} at {time.time():.3f}")
                model.fault()
            now = time.time()
            if now - last_t >= a.log_every_s or step == a.max_steps:
                loss, acc = model.batch_result()
                now = time.time()
                say(f"step {step} loss {loss:.4f} accuracy {acc:.3f} steps/s {(step - last_step) / (now - last_t):.1f} at {now:.3f}")
                last_t, last_step = now, step
        say(f"done: {a.max_steps} steps in {time.time() - t0:.1f} s")
        return 0
    except CudaError as e:
        say(f"error: {e} at step {step} at {time.time():.3f}")
        return 1
    except OSError as e:
        say(f"error: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
