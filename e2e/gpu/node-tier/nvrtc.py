"""Compiles a CUDA C file to PTX with NVRTC through ctypes: node-tier.sh's second way to build the trainer's kernels on
the GPU machine when nvcc is not there. NVRTC is looked for where the machine has it: the CUDA toolkit's lib64, then
the NVIDIA wheels (nvidia-cuda-nvrtc) beside the Python packages PyTorch uses.

  python3 nvrtc.py SOURCE.cu OUT.ptx ARCH        (ARCH such as compute_90)
"""
import ctypes
import glob
import os
import site
import sys


def candidates():
    roots = ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"] + glob.glob("/usr/local/cuda-*/lib64")
    for sp in site.getsitepackages() + [site.getusersitepackages()]:
        roots += glob.glob(os.path.join(sp, "nvidia", "**", "lib"), recursive=True) + [os.path.join(sp, "torch", "lib")]
    for r in roots:
        for f in sorted(glob.glob(os.path.join(r, "libnvrtc.so*")), reverse=True):
            if "builtins" not in f:
                yield f


def load():
    tried = []
    for path in candidates():
        folder = os.path.dirname(path)
        for b in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so*")), reverse=True):
            try:
                ctypes.CDLL(b, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError:
                pass
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise SystemExit("nvrtc: no NVRTC library could be loaded" + ("; tried " + "; ".join(tried) if tried else " (none found)"))


def main(src, out, arch):
    lib, path = load()
    prog = ctypes.c_void_p()
    with open(src, "rb") as f:
        code = f.read()
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), ctypes.c_char_p(code), ctypes.c_char_p(b"kernels.cu"), 0, None, None)
    if r != 0:
        raise SystemExit(f"nvrtc: nvrtcCreateProgram returned {r}")
    opts = (ctypes.c_char_p * 1)(f"--gpu-architecture={arch}".encode())
    r = lib.nvrtcCompileProgram(prog, 1, opts)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value + 1)
    lib.nvrtcGetProgramLog(prog, log)
    if r != 0:
        raise SystemExit(f"nvrtc: compiling {src} failed ({r}): {log.value.decode(errors='replace')}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    with open(out, "wb") as f:
        f.write(ptx.value)
    print(f"nvrtc: {src} -> {out} ({len(ptx.value)} bytes) with {path}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
