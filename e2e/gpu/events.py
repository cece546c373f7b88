"""For run-suite.sh: how long after each policing case's allocation the host's policer saw it and acted.

usage: python3 events.py PS_JSON NAME... ; reads /tmp/e2e-NAME.t (epoch seconds when the case's memory was held)
and the events of `mpshare ps --json`; prints, per case, the first finding and the first action after that time.
"""
import json
import re
import sys
from datetime import datetime

FINDINGS = {"GpuMemoryOverLimit", "RogueGpuProcess"}
ACTIONS = {"MpsClientTerminated", "GpuProcessKilled", "GpuPodEvicted"}

ps = json.load(open(sys.argv[1]))
def ts(at):
    at = re.sub(r"(\.\d{6})\d*", r"\1", at.replace("Z", "+00:00"))
    return datetime.fromisoformat(at).timestamp()


events = sorted(((ts(e["at"]), e) for e in ps.get("events", [])), key=lambda x: x[0])
names = sys.argv[2:]
starts = {}
for n in names:
    try:
        starts[n] = float(open(f"/tmp/e2e-{n}.t").read())
    except OSError:
        pass
order = sorted(starts.items(), key=lambda x: x[1])
for i, (n, t0) in enumerate(order):
    t1 = order[i + 1][1] if i + 1 < len(order) else float("inf")
    seen = next(((t, e) for t, e in events if t0 - 1.0 <= t < t1 and e["reason"] in FINDINGS), None)
    acted = next(((t, e) for t, e in events if t0 - 1.0 <= t < t1 and e["reason"] in ACTIONS), None)
    f = f"{seen[1]['reason']} after {seen[0] - t0:.2f} s" if seen else "no finding"
    a = f"{acted[1]['reason']} after {acted[0] - t0:.2f} s" if acted else "no action"
    print(f"POLICED {n}: {f}; {a}")
