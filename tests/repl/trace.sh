#!/bin/sh
# --trace: rule30 on 4 CPU devices writes a Chrome trace-event JSON with one named track
# per device (kernels and ppermutes on each) and host events (compile phases, launches).
# Usage: trace.sh SPMDRUN RULE30.spmd
spmdrun=$1; prog=$2
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$spmdrun" --devices cpu:4 --trace "$out" "$prog" > /dev/null || { echo "FAIL: the run failed"; exit 1; }
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
devices = sorted(t for (p, t) in names if p == 1)
assert devices == [0, 1, 2, 3], f"device tracks {devices}"
assert all(names[(1, t)] == f"device {t}" for t in devices), names
for t in devices:
    kinds = {e["cat"] for e in ev if e["ph"] == "X" and e["pid"] == 1 and e["tid"] == t}
    assert kinds == {"kernel", "collective"}, f"device {t}: {kinds}"
    assert sum(1 for e in ev if e["ph"] == "X" and e["pid"] == 1 and e["tid"] == t and e["cat"] == "kernel") == 20
host = {e["cat"] for e in ev if e["ph"] == "X" and e["pid"] == 0}
assert {"compile", "launch", "run"} <= host, host
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in ev if e["ph"] == "X")
print("ok")
PY
