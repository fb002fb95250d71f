"""ucimanifest.py ENGINE NODES MULTIPV POSITIONS OUT: a candidate manifest
written the way a harness of its own writes it, straight from a UCI
engine's output, without cohort: options set once, each position searched
after ucinewgame with `go nodes NODES`, and for each multipv number the
last `info` line that has a score and a pv, as printed.  No depth, no
bound and no SAN are kept (the engine prints no SAN; a harness that keeps
the score alone drops the bound marks); each line records the engine's
`seldepth`, a field cohort does not write.  The file is written with
Python's json.dumps as it comes (spaces after separators, the keys in the
order written), so its bytes are not its canonical lines.  When the node
limit stops Stockfish in an iteration, the lines it has not searched again
keep the score of the iteration before: the list is then out of score
order with no bound marked, as real harnesses' manifests are."""
import hashlib
import json
import os
import shutil
import subprocess
import sys

eng, nodes, multipv, positions, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
binary = os.path.realpath(shutil.which(eng) or eng)
p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def send(s):
    p.stdin.write(s + "\n")
    p.stdin.flush()


def until(word):
    got = []
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the engine stopped")
        got.append(line.split())
        if got[-1] and got[-1][0] == word:
            return got


send("uci")
name = " ".join(next(t[2:] for t in until("uciok") if t[:2] == ["id", "name"]))
options = {"Threads": 1, "Hash": 16}
for k, v in options.items():
    send("setoption name %s value %s" % (k, v))
send("setoption name MultiPV value %d" % multipv)
rows = []
for line in open(positions):
    if not line.strip():
        continue
    pos = json.loads(line)
    send("ucinewgame")
    send("isready")
    until("readyok")
    send("position fen " + pos["fen"])
    send("go nodes %d" % nodes)
    last = {}
    for t in until("bestmove"):
        if t[:1] != ["info"] or "multipv" not in t or "pv" not in t or "score" not in t:
            continue
        k = int(t[t.index("multipv") + 1])
        s = t.index("score")
        last[k] = {"uci": t[t.index("pv") + 1], t[s + 1]: int(t[s + 2]),
                   "pv": t[t.index("pv") + 1:], "seldepth": int(t[t.index("seldepth") + 1])}
    cands = []
    for k in sorted(last):
        c = last[k]
        cands.append({"uci": c["uci"], "cp" if "cp" in c else "mate": c.get("cp", c.get("mate")),
                      "pv": c["pv"], "seldepth": c["seldepth"]})
    rows.append({"position_id": pos["position_id"], "fen": pos["fen"], "split": pos["split"],
                 "opening": pos["opening"], "stratum": pos["stratum"], "candidates": cands})
send("quit")
p.wait()
rows.sort(key=lambda r: r["position_id"].encode())
head = {"kind": "cohort.candidates/1", "name": "harness",
        "engine": {"name": name, "binary_sha256": hashlib.sha256(open(binary, "rb").read()).hexdigest(),
                   "options": options, "nodes": nodes, "multipv": multipv}}
with open(out, "w") as f:
    for o in [head] + rows:
        f.write(json.dumps(o) + "\n")
