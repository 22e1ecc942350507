#!/usr/bin/env python3
"""Runs real Futhark programs (a futhark-benchmarks checkout, not part of
this repository) on thorn and reports, per program: whether its smallest
dataset passes `thorn test`, how long it took, and every SOAC call that ran
on the reference backend instead of being flattened, grouped by reason.

  python3 bench/real/survey.py --thorn build/thorn --benchmarks /path/to/futhark-benchmarks \
      [--backend host] [--timeout 120] [--json out.json] [--size 32] [--all | PROGRAM ...]

A program whose first dataset is not in the checkout (futhark-benchmarks
keeps many as links into a separate data repository) is run instead on
synthetic inputs: `thorn check --entry-types` gives the entry point's
parameter types, every size gets the value --size, integer scalars are
small counts (3..7), integer arrays hold valid indices (0..size-1) and
floats are drawn from [0, 1] (`thorn dataset`). Its status is then
`synthetic:<exit code>`: the run checks no output, but its plan log still
shows every SOAC call it reached that fell back to the reference backend.

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

# A test case's first line: `input`, after an optional quoted name, any tags (`compiled`, `nobench`,
# `no_python`, `only_c`, `script`, ...) and `random`.
CASE = re.compile(r"^--\s*(?:\"[^\"]*\"\s+)?(?:(?!random\b)[a-z_0-9]+\s+)*(random\s+)?input\b")


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
        # A case runs from its `input` line to the next case's: its input and
        # output may each span several lines.
        kept, cases, keep = [], 0, True
        for b in block:
            m = CASE.match(b)
            if m:
                random = bool(m.group(1))
                cases += not random  # the first case with data is kept
                keep = not random and cases == 1
            if keep:
                kept.append(b)
        out.extend(kept)
    return "\n".join(out)


def entry_of(text):
    """The entry point the program's first test block runs."""
    m = re.search(r"^--\s*==\s*\n((?:--.*\n)*)", text, re.M)
    e = m and re.search(r"^--\s*entry:\s*(\S+)", m.group(1), re.M)
    return e.group(1) if e else "main"


def synthetic_inputs(thorn, path, entry, size):
    """`thorn dataset` arguments making inputs for `entry`, or None."""
    p = subprocess.run([thorn, "check", "--entry-types", path], capture_output=True, text=True)
    for line in p.stdout.split("\n"):
        name, _, sig = line.partition(":")
        if name != entry:
            continue
        gens = []
        for t in sig.split("->")[0].split():
            t = t.lstrip("*")
            base = re.sub(r"^(\[[^\]]*\])*", "", t)
            # Constant sizes stay; every named or anonymous one becomes --size.
            dims = "".join(d if d[1:-1].isdigit() else f"[{size}]" for d in re.findall(r"\[[^\]]*\]", t))
            if base not in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool"):
                return None
            if not dims and base[0] in "iu":
                gens.append(f"{3 + len(gens) % 5}{base}")  # a small count, not a random word
            else:
                gens.append(dims + base)
        # Integer arrays are often indices: keep them inside every array.
        args = [f"--{b}-bounds=0:{size - 1}" for b in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")]
        for g in gens:
            args += ["-g", g]
        return args
    return None


def survey_synthetic(thorn, path, entry, backend, timeout, size):
    gen = synthetic_inputs(thorn, path, entry, size)
    if gen is None:
        return "no-inputs", "", "", 0.0
    data = subprocess.run([thorn, "dataset", "-b"] + gen, capture_output=True).stdout
    # Every call planned, however small the synthetic sizes make it.
    env = dict(os.environ, THORN_LOG_PLAN="1", THORN_HOST_MIN_WORK="0")
    t0 = time.time()
    try:
        p = subprocess.run([thorn, "run", "--backend", backend, "-e", entry, path], input=data,
                           capture_output=True, timeout=timeout, env=env)
        status, err = f"synthetic:{p.returncode}", p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        status, err = "synthetic:timeout", (e.stderr or b"").decode(errors="replace")
    return status, "", err, time.time() - t0


def survey(thorn, root, prog, backend, timeout, size=32):
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
    if "cannot read data file" in out + err:
        status, out, err, secs = survey_synthetic(thorn, path, entry_of(src), backend, timeout, size)
    reasons = collections.Counter()
    for line in err.split("\n"):
        m = re.search(r"runs on the reference backend: (.*)$", line)
        if m:
            reasons[re.sub(r"\S+\.fut:\d+:\d+(-\d+)?", "<loc>", m.group(1))] += 1
    summary = [l for l in out.split("\n") if re.search(r"\d+ passed, \d+ failed", l)]
    return {"program": prog, "status": status, "seconds": round(secs, 2),
            "result": summary[-1] if summary else "", "fallbacks": sum(reasons.values()),
            "reasons": reasons.most_common()}


def all_programs(root):
    """Every .fut file under root with a `-- ==` test block (library files
    have none), in a stable order."""
    found = []
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
        for f in sorted(files):
            if not f.endswith(".fut") or f.endswith(".thorn-survey.fut"):
                continue
            path = os.path.join(d, f)
            if re.search(r"^--\s*==\s*$", open(path, errors="replace").read(), re.M):
                found.append(os.path.relpath(path, root))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--thorn", default="build/thorn")
    ap.add_argument("--benchmarks", required=True)
    ap.add_argument("--backend", default="host")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json")
    ap.add_argument("--size", type=int, default=32, help="every size of a synthetic input")
    ap.add_argument("--all", action="store_true",
                    help="every program in the checkout with a test block, not only the list above")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args()
    thorn = os.path.abspath(a.thorn)
    rows = []
    progs = a.programs or (all_programs(a.benchmarks) if a.all else PROGRAMS)
    for prog in progs:
        if not os.path.exists(os.path.join(a.benchmarks, prog)):
            print(f"{prog}: not in the checkout", file=sys.stderr)
            continue
        r = survey(thorn, a.benchmarks, prog, a.backend, a.timeout, a.size)
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
