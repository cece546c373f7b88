"""Re-stores every jar in the folders given without compression, in place, so that a later xz over all of them
compresses the class files together (far smaller: the archives a device call carries stay under its 64 MiB).
Used by e2e/gpu/build-runtime.sh and bench/build-quiet.sh.  Usage: python3 e2e/gpu/store-jars.py DIR [DIR ...]"""
import glob, os, sys, zipfile

for d in sys.argv[1:]:
    for j in glob.glob(os.path.join(d, "*.jar")):
        tmp = j + ".stored"
        with zipfile.ZipFile(j) as zi, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zo:
            for info in zi.infolist():
                data = zi.read(info)
                info.compress_type = zipfile.ZIP_STORED
                zo.writestr(info, data)
        os.replace(tmp, j)
