"""The supervisor's unix-socket API from a shell, for domains-check.sh (Python standard library only).

usage: python3 sup.py SOCKET put ID GPU KIND UID|null CEILING_MIB PERCENT   -> HTTP code, then the domain's JSON
       python3 sup.py SOCKET get ID [FIELD]                                 -> the domain's JSON, or one field ("" if none)
       python3 sup.py SOCKET wait ID STATE SECONDS [POLL_S]                 -> "STATE after N.NNN s" or "timeout: last STATE"; exit 1 on timeout
       python3 sup.py SOCKET recover ID SINCE SECONDS TRIGGER               -> waits for a fault recorded at or after SINCE (epoch s),
                                                                               then for SERVING, then creates the file TRIGGER:
                                                                               "FAULTED at T source S", "SERVING at T"; exit 1 on timeout
       python3 sup.py SOCKET delete ID                                      -> HTTP code
       python3 sup.py SOCKET status                                         -> /status JSON
       python3 sup.py SOCKET signals ID                                     -> lastFault's signals, earliest first, one "source at detail" a line
Times are epoch seconds where printed.
"""
import json
import signal
import socket
import sys
import time
from datetime import datetime


def http(sock_path, method, path, body=None, timeout=10.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(sock_path)
    data = b"" if body is None else json.dumps(body).encode()
    s.sendall((f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode() + data)
    chunks = []
    while True:
        c = s.recv(65536)
        if not c:
            break
        chunks.append(c)
    s.close()
    head, _, rest = b"".join(chunks).partition(b"\r\n\r\n")
    code = int(head.split(b" ", 2)[1])
    return code, rest.decode()


def epoch(iso):
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def main():
    sock, verb, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if verb == "put":
        i, gpu, kind, uid, ceiling, pct = args
        code, body = http(sock, "PUT", "/domains/" + i, {"gpu": gpu, "kind": kind, "clientUid": None if uid == "null" else int(uid),
                                                          "ceilingMiB": int(ceiling), "activeThreadPercentage": int(pct)})
        print(code)
        print(body)
    elif verb == "get":
        code, body = http(sock, "GET", "/domains/" + args[0])
        if code != 200:
            print("" if len(args) > 1 else f"{code} {body}")
            return 1
        if len(args) == 1:
            print(body)
        else:
            v = json.loads(body).get(args[1])
            print(v if isinstance(v, str) else json.dumps(v))
    elif verb == "wait":
        i, state, seconds = args[0], args[1], float(args[2])
        poll = float(args[3]) if len(args) > 3 else 0.1
        t0 = time.time()
        last = "?"
        while time.time() - t0 < seconds:
            try:
                code, body = http(sock, "GET", "/domains/" + i, timeout=2)
                last = json.loads(body).get("state", "?") if code == 200 else f"HTTP {code}"
            except OSError as e:
                last = f"no answer ({e})"
            if last == state:
                print(f"{state} after {time.time() - t0:.3f} s at {time.time():.3f}")
                return 0
            time.sleep(poll)
        print(f"timeout after {seconds:.0f} s: last {last}")
        return 1
    elif verb == "recover":
        # FAULTED lasts only until the killed clients are gone (milliseconds on a quiet machine): read the recorded
        # fault, not the state, and touch the trigger the moment the domain serves again (one process, no shell turns)
        i, since, seconds, trigger = args[0], float(args[1]), float(args[2]), args[3]
        t0, fault_at, last = time.time(), None, "?"
        while time.time() - t0 < seconds:
            try:
                code, body = http(sock, "GET", "/domains/" + i, timeout=2)
                d = json.loads(body) if code == 200 else {}
                last = d.get("state", f"HTTP {code}")
                f = d.get("lastFault")
                if fault_at is None and f and epoch(f["at"]) >= since - 0.5:
                    fault_at = epoch(f["at"])
                    print(f"FAULTED at {fault_at:.3f} source {f['source']}", flush=True)
                if fault_at is not None and last == "SERVING":
                    open(trigger, "w").close()
                    print(f"SERVING at {time.time():.3f}", flush=True)
                    return 0
            except OSError as e:
                last = f"no answer ({e})"
            time.sleep(0.02)
        print(f"timeout after {seconds:.0f} s: last {last}{'' if fault_at else ', no fault recorded'}")
        return 1
    elif verb == "delete":
        code, _ = http(sock, "DELETE", "/domains/" + args[0])
        print(code)
    elif verb == "status":
        print(http(sock, "GET", "/status")[1])
    elif verb == "signals":
        code, body = http(sock, "GET", "/domains/" + args[0])
        fault = json.loads(body).get("lastFault") if code == 200 else None
        for s in sorted((fault or {}).get("signals", []), key=lambda x: x["at"]):
            print(f"{s['source']} {epoch(s['at']):.3f} {s.get('detail', '')[:100]}")
        if fault:
            print(f"acted {fault['source']} {epoch(fault['at']):.3f} killed {fault.get('clients', [])}")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `sup put ... | head -1` ends quietly
    sys.exit(main())
