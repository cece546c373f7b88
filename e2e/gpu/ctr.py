"""Runs one command in a real OCI container with runc, the way kubelet + containerd would run a pod's container.

usage: python3 e2e/gpu/ctr.py --name N --uid U --gid G [--env-file F] [--env K=V ...] [--mount HOST:CTR[:ro] ...]
                              [--cgroup PATH] [--pid-file F] -- CMD ARGS...

The root filesystem is the host's own, read-only: /usr (with the driver under /usr/local/nvidia), /etc, /opt
(PyTorch), /bin, /lib, /lib64, /sbin bind-mounted read-only into an empty folder, and the repository (read-only)
at /e2e so the workloads are there. The container gets its own PID, IPC, mount, UTS and network-less namespaces
(no network namespace is made: the GPU suite needs none and runc's default is the host's when it is not named),
its own /proc, /dev (with the NVIDIA device nodes), /dev/shm and /tmp, and only the mounts named with --mount:
the MPS pipe directory read-only, as the device plugin answers. The process runs as --uid/--gid with no
capabilities, no-new-privileges, and exactly the environment given (the image's PATH, HOME=/tmp, plus the answer's).
--cgroup places it in a cgroup path shaped like kubelet's (/kubepods/pod<uid>/<container id>) so the policer's
cgroup parser maps its PIDs to the pod. Stdout and stderr pass through; the exit code is the command's.
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

RUNC = os.environ.get("RUNC", "runc")
RO_DIRS = ["/usr", "/etc", "/opt", "/bin", "/lib", "/lib64", "/sbin"]


def nvidia_devices():
    out = []
    for name in sorted(os.listdir("/dev")):
        if not name.startswith("nvidia"):
            continue
        path = "/dev/" + name
        st = os.stat(path)
        if not stat.S_ISCHR(st.st_mode):
            continue
        out.append({"path": path, "type": "c", "major": os.major(st.st_rdev), "minor": os.minor(st.st_rdev),
                    "fileMode": 0o666, "uid": 0, "gid": 0})
    return out


def bind(src, dst, ro):
    opts = ["rbind", "nosuid"] + (["ro"] if ro else ["rw"])
    return {"destination": dst, "type": "bind", "source": src, "options": opts}


def config(a, rootfs):
    env = ["PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/bin:/usr/bin:/bin", "HOME=/tmp",
           "PYTHONUNBUFFERED=1"]
    if a.env_file:
        with open(a.env_file) as f:
            env += [l.strip() for l in f if "=" in l]
    env += a.env
    mounts = [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    ]
    mounts += [bind(d, d, True) for d in RO_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    mounts.append(bind(os.path.abspath(a.repo), "/e2e", True))
    for m in a.mount:
        parts = m.split(":")
        mounts.append(bind(parts[0], parts[1], len(parts) > 2 and parts[2] == "ro"))
    links = [d for d in RO_DIRS if os.path.islink(d)]
    for d in links:  # merged-/usr hosts: /bin -> usr/bin and so on, as symbolic links in the root folder
        os.symlink(os.readlink(d), rootfs + d)
    cfg = {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False, "user": {"uid": a.uid, "gid": a.gid, "additionalGids": []},
            "args": a.cmd, "env": env, "cwd": "/tmp", "noNewPrivileges": True,
            "capabilities": {k: [] for k in ("bounding", "effective", "inheritable", "permitted", "ambient")},
        },
        "root": {"path": rootfs, "readonly": True},
        "hostname": a.name,
        "mounts": mounts,
        "linux": {
            "namespaces": [{"type": t} for t in ("pid", "ipc", "uts", "mount")],
            "devices": nvidia_devices(),
            "resources": {"devices": [{"allow": False, "access": "rwm"},
                                      {"allow": True, "type": "c", "major": 195, "access": "rwm"},
                                      {"allow": True, "type": "c", "access": "rwm"}]},
            "maskedPaths": ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
            "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
        },
    }
    if a.cgroup:
        cfg["linux"]["cgroupsPath"] = a.cgroup
    return cfg


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--name", required=True)
    p.add_argument("--uid", type=int, default=1000)
    p.add_argument("--gid", type=int, default=1000)
    p.add_argument("--env-file")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--mount", action="append", default=[])
    p.add_argument("--cgroup")
    p.add_argument("--repo", default=".")
    p.add_argument("cmd", nargs="+")
    a = p.parse_args()
    bundle = tempfile.mkdtemp(prefix=f"ctr-{a.name}-")
    rootfs = os.path.join(bundle, "rootfs")
    os.makedirs(rootfs)
    for d in RO_DIRS + ["/proc", "/dev", "/tmp", "/sys", "/e2e"] + [m.split(":")[1] for m in a.mount]:
        if not os.path.islink(d):
            os.makedirs(rootfs + d, exist_ok=True)
    with open(os.path.join(bundle, "config.json"), "w") as f:
        json.dump(config(a, rootfs), f, indent=1)
    try:
        rc = subprocess.call([RUNC, "run", "--bundle", bundle, f"e2e-{a.name}-{os.getpid()}"])
    finally:
        subprocess.call([RUNC, "delete", "-f", f"e2e-{a.name}-{os.getpid()}"], stderr=subprocess.DEVNULL)
        shutil.rmtree(bundle, ignore_errors=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()
