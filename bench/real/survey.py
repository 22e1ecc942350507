#!/usr/bin/env python3
"""Runs real Futhark programs (a futhark-benchmarks checkout, not part of
this repository) on thorn and reports, per program: whether its smallest
dataset passes `thorn test`, how long it took, and every SOAC call that ran
on the reference backend instead of being flattened, grouped by reason.

  python3 bench/real/survey.py --thorn build/thorn --benchmarks /path/to/futhark-benchmarks \
      [--backend host] [--timeout 120] [--json out.json] [PROGRAM ...]

For each program a sibling file `NAME.thorn-survey.fut` is written next to
it (in the checkout) holding the program with each test block cut down to
its first dataset (random inputs dropped), so that imports and data paths
resolve as in the original.
"""
import argparse, collections, json, os, re, subprocess, sys, time

PROGRAMS = [
    "finpar/OptionPricing.fut", "finpar/LocVolCalib.fut", "finpar/InterestCalib.fut",
    "rodinia/backprop/backprop.fut", "rodinia/cfd/cfd.fut", "rodinia/hotspot/hotspot.fut",
    "rodinia/kmeans/kmeans.fut", "rodinia/lavaMD/lavaMD.fut", "rodinia/lud/lud.fut",
    "rodinia/myocyte/myocyte.fut", "rodinia/nn/nn.fut", "rodinia/nw/nw.fut",
    "rodinia/particlefilter/particlefilter.fut", "rodinia/pathfinder/pathfinder.fut", "rodinia/srad/srad.fut",
    "rodinia/bfs/bfs_filt_padded_fused.fut",
    "misc/ocean-sim/tridiag-test.fut", "misc/heston/heston32.fut", "misc/bfast/bfast.fut",
    "misc/life/life.fut",
    "accelerate/nbody/nbody.fut", "accelerate/kmeans/kmeans.fut", "accelerate/mandelbrot/mandelbrot.fut",
    "accelerate/crystal/crystal.fut", "accelerate/fluid/fluid.fut", "accelerate/canny/canny.fut",
    "accelerate/pagerank/pagerank.fut", "accelerate/fft/fft.fut", "accelerate/hashcat/hashcat.fut",
]

CASE = re.compile(r"^--\s*(compiled\s+|nobench\s+|script\s+)*(random\s+)?input\b")


def first_datasets(text):
    """The program's text with each `-- ==` block cut to its first case."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.strip() != "-- ==":
            continue
        block = []
        while i < len(lines) and lines[i].startswith("--"):
            block.append(lines[i])
            i += 1
        kept, cases, in_case, random = [], 0, False, False
        for b in block:
            m = CASE.match(b)
            if m:
                random = bool(m.group(2))
                in_case = True
                cases += 1
            if in_case and (random or cases > 1):
                if re.match(r"^--\s*(output|error)\b", b) or (m and "output" in b):
                    in_case = False
                continue
            kept.append(b)
            if re.match(r"^--\s*(output|error)\b", b):
                in_case = False
        out.extend(kept)
    return "\n".join(out)


def survey(thorn, root, prog, backend, timeout):
    path = os.path.join(root, prog)
    src = open(path).read()
    small = path[:-4] + ".thorn-survey.fut"
    with open(small, "w") as f:
        f.write(first_datasets(src))
    env = dict(os.environ, THORN_LOG_PLAN="1")
    t0 = time.time()
    try:
        p = subprocess.run([thorn, "test", "--backend", backend, small], capture_output=True, text=True,
                           timeout=timeout, env=env)
        status, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        status, out = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    secs = time.time() - t0
    reasons = collections.Counter()
    for line in err.split("\n"):
        m = re.search(r"runs on the reference backend: (.*)$", line)
        if m:
            reasons[re.sub(r"\S+\.fut:\d+:\d+(-\d+)?", "<loc>", m.group(1))] += 1
    summary = [l for l in out.split("\n") if re.search(r"\d+ passed, \d+ failed", l)]
    return {"program": prog, "status": status, "seconds": round(secs, 2),
            "result": summary[-1] if summary else "", "fallbacks": sum(reasons.values()),
            "reasons": reasons.most_common()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--thorn", default="build/thorn")
    ap.add_argument("--benchmarks", required=True)
    ap.add_argument("--backend", default="host")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args()
    thorn = os.path.abspath(a.thorn)
    rows = []
    for prog in a.programs or PROGRAMS:
        if not os.path.exists(os.path.join(a.benchmarks, prog)):
            print(f"{prog}: not in the checkout", file=sys.stderr)
            continue
        r = survey(thorn, a.benchmarks, prog, a.backend, a.timeout)
        rows.append(r)
        print(f"{r['program']:45} {str(r['status']):8} {r['seconds']:8.2f}s  {r['result']:32} fallbacks {r['fallbacks']}")
        for why, n in r["reasons"][:4]:
            print(f"      {n:6}  {why[:150]}")
        sys.stdout.flush()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
