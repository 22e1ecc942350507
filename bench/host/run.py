#!/usr/bin/python3
"""The host backend against NumPy (and against thorn's reference backend).

Measures, in the same run and on the same data:
  sum, fused sum of squares, prefix sum, weighted histograms with 256 and
  65536 bins, row sums and row prefix sums of [10^4][10^4] and [10^7][10]
  matrices, and the overhead of a SOAC call on a one-element array;
and prints a markdown table of times and ratios (thorn / NumPy; below 1
means thorn is faster). Timings are the best of --runs runs after a warm-up,
for thorn and NumPy alike: on a shared machine the minimum is the least
disturbed measurement.

  bench/host/run.py [--thorn build/thorn] [--sizes 1e7,1e8] [--runs 5]
                    [--reference-size 1e6] [--out results.md]

Uses Debian's NumPy with /usr/bin/python3 (installed with apt-get when
missing; started by another python3 without NumPy, such as pyenv's, the
script runs itself again with /usr/bin/python3). Data files go to a temporary directory (Futhark's binary format).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # the script's contract: Debian's NumPy on /usr/bin/python3
    SYSTEM_PYTHON = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and os.path.exists(SYSTEM_PYTHON):
        # `python3 run.py` may find another interpreter first (pyenv, a venv).
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    subprocess.run(["apt-get", "install", "-y", "python3-numpy"], check=True)
    os.execv(sys.executable, [sys.executable] + sys.argv)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from benchutil import best_of as numpy_time, fmt_time, write_futhark  # noqa: E402
import benchutil  # noqa: E402


def thorn_bench(thorn, entry, data, runs, backend):
    """Best runtime in seconds of `entry` on the dataset file, via thorn bench --json."""
    return benchutil.thorn_bench(thorn, os.path.join(HERE, "ops.fut"), entry, data, runs, backend)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--thorn", default=os.path.join(HERE, "..", "..", "build", "thorn"))
    ap.add_argument("--sizes", default="1e7,1e8")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reference-size", default="1e6",
                    help="vector size for the reference-vs-host comparison (the reference is slow)")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    rng = np.random.default_rng(42)
    rows = []  # (operation, n, thorn seconds, numpy seconds)
    tmp = tempfile.mkdtemp(prefix="thorn-bench-")

    def measure(name, n, entry, arrays, np_fn):
        path = os.path.join(tmp, f"{entry}-{n}.bin")
        write_futhark(path, *arrays)
        t = thorn_bench(args.thorn, entry, path, args.runs, "host")
        os.unlink(path)
        rows.append((name, n, t, numpy_time(np_fn, args.runs)))
        print(f"{name:<28} {n:>11}  thorn {fmt_time(t):>10}  numpy {fmt_time(rows[-1][3]):>10}", flush=True)

    for n in sizes:
        xs = rng.random(n)
        measure("sum", n, "sum", [xs], lambda: np.sum(xs))
        measure("sum of squares (fused)", n, "sumsq", [xs], lambda: np.sum(xs * xs))
        measure("prefix sum", n, "prefix", [xs], lambda: np.cumsum(xs))
        for bins in (256, 65536):
            idx = rng.integers(0, bins, n)
            measure(f"histogram, {bins} bins", n, f"hist{bins}", [idx, xs],
                    lambda: np.bincount(idx, weights=xs, minlength=bins))
            del idx
        del xs
    for shape in ((10**4, 10**4), (10**7, 10)):
        xss = rng.random(shape)
        label = f"[{shape[0]:.0e}][{shape[1]}]".replace("e+0", "e")
        measure(f"row sums {label}", xss.size, "rowsums", [xss], lambda: xss.sum(axis=1))
        measure(f"row prefix sums {label}", xss.size, "rowscans", [xss], lambda: np.cumsum(xss, axis=1))
        del xss

    # Per-call overhead: 1000 iterations of two SOACs on a one-element array.
    one = np.array([1.0])
    path = os.path.join(tmp, "tiny.bin")
    write_futhark(path, one)
    t = thorn_bench(args.thorn, "tiny", path, args.runs, "host") / 2000

    def np_tiny():
        acc = 0.0
        for i in range(1000):
            acc += np.sum(one + float(i))
        return acc

    rows.append(("one SOAC call, 1 element", 1, t, numpy_time(np_tiny, args.runs) / 2000))

    # Reference vs host backend, on a smaller vector.
    nref = int(float(args.reference_size))
    xs = rng.random(nref)
    path = os.path.join(tmp, "ref.bin")
    write_futhark(path, xs)
    ref_rows = []
    for entry in ("sum", "sumsq", "prefix"):
        tr = thorn_bench(args.thorn, entry, path, max(1, args.runs // 2), "reference")
        th = thorn_bench(args.thorn, entry, path, args.runs, "host")
        ref_rows.append((entry, nref, tr, th))
    os.unlink(path)

    lines = ["| operation | elements | thorn host | NumPy | host / NumPy |", "|---|---:|---:|---:|---:|"]
    for name, n, t, npt in rows:
        lines.append(f"| {name} | {n:.0e} | {fmt_time(t)} | {fmt_time(npt)} | {t / npt:.2f} |")
    lines += ["", "| entry | elements | reference backend | host backend | reference / host |",
              "|---|---:|---:|---:|---:|"]
    for entry, n, tr, th in ref_rows:
        lines.append(f"| {entry} | {n:.0e} | {fmt_time(tr)} | {fmt_time(th)} | {tr / th:.0f} |")
    benchutil.emit_table(lines, args.out)


if __name__ == "__main__":
    main()
