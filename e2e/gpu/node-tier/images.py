"""Single-layer OCI image archives for the node tier, made from files of the machine it runs on (no registry is
reachable there), in the form `ctr images import` reads (oci-layout, index.json naming the image, blobs/sha256/...).

  python3 images.py pause --binary FILE --ref REF --out FILE
      the sandbox image: one static binary as /pause.
  python3 images.py seed --python EXE --app DIR --ref REF --out FILE [--user UID:GID] [--env K=V ...] [--files-out LIST]
                          [--ldd-also ELF ...]
      the stand-in for the seed's image: the interpreter EXE (at its real path, with /usr/bin/python and python3
      linking to it), its standard library and the shared libraries `ldd` names for it, its extension modules,
      /bin/sh and each --ldd-also file (the driver's files, which the device plugin mounts, need the distribution's
      libdl.so.2 and librt.so.1 that Python no longer names); /etc/passwd and /etc/group; DIR's files as /root/tensorflow-sample-code/tfjob/docker/mnist/. The
      config is a CUDA image's: PATH and LD_LIBRARY_PATH name /usr/local/nvidia/{bin,lib,lib64}, where the device
      plugin's device-specs answer mounts the driver's files when the host keeps them there.

Every entry is owned by root with mtime 0; files keep their mode. Symbolic links on the way to a file (merged-/usr
hosts: /lib -> usr/lib) are kept as links, so every path `ldd` printed resolves in the image as on the host.
"""
import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

APP_DIR = "root/tensorflow-sample-code/tfjob/docker/mnist"
DATA_DIR = "root/tensorflow-sample-code/data"
STDLIB_SKIP = {"test", "tests", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages", "dist-packages", "pydoc_data"}
CUDA_ENV = ["PATH=/usr/local/nvidia/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64", "LANG=C.UTF-8"]


class Layer:
    """The entries of one layer, by path inside the image (no leading slash); written as one uncompressed tar."""

    def __init__(self):
        self.entries = {}

    def dir(self, path, mode=0o755):
        path = path.strip("/")
        parent = os.path.dirname(path)
        if parent and parent not in self.entries:
            self.dir(parent)
        if path and path not in self.entries:
            self.entries[path] = ("dir", None, mode)

    def data(self, path, content, mode=0o644):
        path = path.strip("/")
        self.dir(os.path.dirname(path))
        self.entries[path] = ("file", content, mode)

    def link(self, path, target):
        path = path.strip("/")
        self.dir(os.path.dirname(path))
        self.entries.setdefault(path, ("link", target, 0o777))

    def host(self, path):
        """A host file at the same path, with every symbolic link on the way to it."""
        path = os.path.abspath(path)
        parts = path.strip("/").split("/")
        cur = "/"
        for i, part in enumerate(parts):
            nxt = os.path.join(cur, part)
            if os.path.islink(nxt):
                target = os.readlink(nxt)
                self.link(nxt, target)
                resolved = os.path.normpath(os.path.join(cur, target))
                rest = parts[i + 1:]
                return self.host(os.path.join(resolved, *rest)) if rest else self.host(resolved)
            if i == len(parts) - 1:
                if os.path.isdir(nxt):
                    self.dir(nxt, os.stat(nxt).st_mode & 0o7777)
                else:
                    self.dir(cur)
                    self.entries[nxt.strip("/")] = ("host", nxt, os.stat(nxt).st_mode & 0o7777)
                return nxt
            cur = nxt
        return cur

    def write(self, out):
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as t:
            for path in sorted(self.entries):
                kind, what, mode = self.entries[path]
                info = tarfile.TarInfo(path)
                info.mode, info.uid, info.gid, info.uname, info.gname, info.mtime = mode, 0, 0, "root", "root", 0
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                    t.addfile(info)
                elif kind == "link":
                    info.type, info.linkname = tarfile.SYMTYPE, what
                    t.addfile(info)
                elif kind == "file":
                    info.size = len(what)
                    t.addfile(info, io.BytesIO(what))
                else:
                    info.size = os.path.getsize(what)
                    with open(what, "rb") as f:
                        t.addfile(info, f)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def archive(out, ref, layer, config):
    """Writes the OCI archive of image ref: layer and the image config (its 'config' part)."""
    with tempfile.TemporaryDirectory(prefix="oci-", dir=os.path.dirname(os.path.abspath(out))) as tmp:
        layer_file = os.path.join(tmp, "layer.tar")
        with open(layer_file, "wb") as f:
            layer.write(f)
        layer_digest = sha256_file(layer_file)
        cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": config,
                          "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_digest]}}).encode()
        manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                                          "digest": "sha256:" + hashlib.sha256(cfg).hexdigest(), "size": len(cfg)},
                               "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                                           "digest": "sha256:" + layer_digest, "size": os.path.getsize(layer_file)}]}).encode()
        index = json.dumps({"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + hashlib.sha256(manifest).hexdigest(),
            "size": len(manifest), "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"io.containerd.image.name": ref, "org.opencontainers.image.ref.name": ref.rsplit(":", 1)[1]}}]}).encode()
        with tarfile.open(out, "w") as t:
            def put(name, data):
                info = tarfile.TarInfo(name)
                info.size, info.mtime = len(data), 0
                t.addfile(info, io.BytesIO(data))
            put("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
            put("index.json", index)
            put("blobs/sha256/" + hashlib.sha256(cfg).hexdigest(), cfg)
            put("blobs/sha256/" + hashlib.sha256(manifest).hexdigest(), manifest)
            t.add(layer_file, "blobs/sha256/" + layer_digest)
    return layer_digest


def ldd(paths):
    """The shared libraries ldd names for these ELF files, the dynamic loader included."""
    out = set()
    for p in paths:
        r = subprocess.run(["ldd", p], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            words = line.split()
            if "=>" in words and len(words) > words.index("=>") + 1 and words[words.index("=>") + 1].startswith("/"):
                out.add(words[words.index("=>") + 1])
            elif words and words[0].startswith("/"):
                out.add(words[0])
    return sorted(out)


def interpreter_paths(python):
    """The interpreter's standard library folders, and its home (PYTHONHOME) when the library sits under it as usual."""
    code = ("import sys, sysconfig; print(sysconfig.get_path('stdlib')); print(sysconfig.get_path('platstdlib')); "
            "print(sys.base_prefix); print(f'python{sys.version_info[0]}.{sys.version_info[1]}')")
    r = subprocess.run([python, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    stdlib, platstdlib, home, version = r.stdout.split()
    return sorted({stdlib, platstdlib}), home if stdlib == os.path.join(home, "lib", version) else None


def add_tree(layer, top, skip):
    elfs = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not (root == top and (d in skip or d.startswith("config-")))]
        layer.host(root)
        for f in files:
            p = os.path.join(root, f)
            layer.host(p)
            if f.endswith(".so"):
                elfs.append(p)
    return elfs


def seed(a):
    layer = Layer()
    exe = os.path.realpath(a.python)
    layer.host(exe)
    for name in ("usr/bin/python", "usr/bin/python3"):
        if "/" + name != exe:
            layer.link(name, exe)
    elfs = [exe]
    stdlib, home = interpreter_paths(exe)
    for d in stdlib:
        elfs += add_tree(layer, d, STDLIB_SKIP)
    layer.host("/bin/sh")
    elfs.append(os.path.realpath("/bin/sh"))
    for lib in ldd(elfs + list(a.ldd_also)):
        layer.host(lib)
    uid, gid = a.user.split(":")
    users = "root:x:0:0:root:/root:/bin/sh\n" + (f"trainer:x:{uid}:{gid}:trainer:/root:/bin/sh\n" if uid != "0" else "")
    groups = "root:x:0:\n" + (f"trainer:x:{gid}:\n" if gid != "0" else "")
    layer.data("etc/passwd", users.encode())
    layer.data("etc/group", groups.encode())
    layer.dir("tmp", 0o1777)
    layer.dir(DATA_DIR)
    for f in sorted(os.listdir(a.app)):
        p = os.path.join(a.app, f)
        if os.path.isfile(p):
            with open(p, "rb") as fh:
                layer.data(f"{APP_DIR}/{f}", fh.read())
    env = CUDA_ENV + ([f"PYTHONHOME={home}"] if home else []) + list(a.env)
    config = {"User": a.user, "Env": env, "WorkingDir": "/root", "Cmd": ["python"]}
    digest = archive(a.out, a.ref, layer, config)
    if a.files_out:
        with open(a.files_out, "w") as f:
            f.write("\n".join(sorted(layer.entries)) + "\n")
    size = os.path.getsize(a.out)
    print(f"images: {a.ref}: {len(layer.entries)} entries, {size / 1e6:.1f} MB, layer sha256:{digest[:12]}, python {exe}, user {a.user}")


def pause(a):
    layer = Layer()
    with open(a.binary, "rb") as f:
        layer.data("pause", f.read(), 0o755)
    archive(a.out, a.ref, layer, {"Entrypoint": ["/pause"], "Env": ["PATH=/"]})
    print(f"images: {a.ref}: {os.path.getsize(a.out)} bytes")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("seed")
    s.add_argument("--python", required=True)
    s.add_argument("--app", required=True)
    s.add_argument("--ref", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--user", default="0:0")
    s.add_argument("--env", action="append", default=[])
    s.add_argument("--files-out")
    s.add_argument("--ldd-also", action="append", default=[],
                   help="an ELF file the container will load from elsewhere (the driver's libcuda.so.1, nvidia-smi): the libraries it needs "
                        "come along, as a CUDA base image's distribution carries them (libdl.so.2, librt.so.1, ...)")
    q = sub.add_parser("pause")
    q.add_argument("--binary", required=True)
    q.add_argument("--ref", required=True)
    q.add_argument("--out", required=True)
    a = p.parse_args(argv)
    seed(a) if a.what == "seed" else pause(a)


if __name__ == "__main__":
    main(sys.argv[1:])
