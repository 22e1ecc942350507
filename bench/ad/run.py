#!/usr/bin/python3
"""AD against the primal on the host backend (bench/ad/ad.fut).

For each row (map-reduce, scan (+), scan with a 2x2 matrix operator,
reduce_by_index (+, *, max) with 31, 1023 and 1.5M bins, a least-squares
gradient, a least-squares gradient over the rows of a [n][4] matrix, a
matrix-vector product differentiated in the matrix) and
each size, measures the forward entry, the vjp entry and the jvp entry
(where the row has one):
  time: best of --runs in-process runs after a warm-up (`thorn bench`);
  peak memory: the peak RSS of one `thorn run` of the entry (/usr/bin/time
  -f %M; it includes thorn's own ~20 MB, printed as the `empty` row);
and prints a markdown table with the vjp/forward and jvp/forward ratios.
Rows whose derivative falls back to the reference tape (no array-level
rule yet) are marked and run at --fallback-size only.

  bench/ad/run.py [--thorn build/thorn] [--sizes 1e6,1e7] [--runs 3]
                  [--fallback-size 1e5] [--out results.md]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import benchutil  # noqa: E402

PROGRAM = os.path.join(HERE, "ad.fut")

# (row, entry prefix, bins or None, has jvp, has an array-level vjp rule)
ROWS = [
    ("map-reduce", "mapred", None, True, True),
    ("scan (+)", "scan_add", None, True, True),
    ("scan (*) generic rule", "scan_mul", None, True, True),
    ("scan 2x2 matrix", "scan_mm2", None, True, True),
    ("hist (+) 31 bins", "hist_add", 31, True, True),
    ("hist (+) 1023 bins", "hist_add", 1023, True, True),
    ("hist (+) 1.5M bins", "hist_add", 1_500_000, True, True),
    ("hist (*) 31 bins", "hist_mul", 31, True, True),
    ("hist (*) 1023 bins", "hist_mul", 1023, True, True),
    ("hist (*) 1.5M bins", "hist_mul", 1_500_000, True, True),
    ("hist (max) 31 bins", "hist_max", 31, True, True),
    ("hist (max) 1023 bins", "hist_max", 1023, True, True),
    ("hist (max) 1.5M bins", "hist_max", 1_500_000, True, True),
    ("hist generic 31 bins", "hist_gen", 31, True, True),
    ("hist generic 1023 bins", "hist_gen", 1023, True, True),
    ("hist generic 1.5M bins", "hist_gen", 1_500_000, True, True),
    ("least squares", "lsq", None, True, True),
    ("gd over [n][4] rows", "gd", None, True, True),
    ("matvec [n/64][64]", "mv", None, True, True),
]


def dataset(tmp, n, w):
    path = os.path.join(tmp, f"in_{n}_{w}.txt")
    with open(path, "w") as f:
        f.write(f"{n}i64" + (f" {w}i64" if w is not None else "") + "\n")
    return path


def peak_rss_mb(thorn, entry, data):
    with open(data) as stdin:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", thorn, "run", "--backend", "host", "-e", entry, PROGRAM],
                           stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--thorn", default=os.path.join(HERE, "..", "..", "build", "thorn"))
    ap.add_argument("--sizes", default="1e6,1e7")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fallback-size", type=float, default=1e5)
    ap.add_argument("--rows", default="", help="comma-separated entry prefixes to run (default: all)")
    ap.add_argument("--out")
    args = ap.parse_args()
    thorn = os.path.abspath(args.thorn)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    wanted = set(args.rows.split(",")) if args.rows else None
    lines = ["| row | n | forward | vjp | vjp/fwd | jvp | jvp/fwd | fwd MB | vjp MB | vjp/fwd mem | jvp MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, prefix, w, has_jvp, has_rule in ROWS:
            if wanted and prefix not in wanted:
                continue
            for n in (sizes if has_rule else [int(args.fallback_size)]):
                data = dataset(tmp, n, w)
                t = {}
                m = {}
                for kind in ["fwd", "vjp"] + (["jvp"] if has_jvp else []):
                    entry = f"{prefix}_{kind}"
                    t[kind] = benchutil.thorn_bench(thorn, PROGRAM, entry, data, args.runs)
                    m[kind] = peak_rss_mb(thorn, entry, data)
                row = name + ("" if has_rule else " (tape fallback)")
                jt = f"{benchutil.fmt_time(t['jvp'])} | {t['jvp'] / t['fwd']:.2f}" if has_jvp else "- | -"
                jm = f"{m['jvp']:.0f}" if has_jvp else "-"
                lines.append(f"| {row} | {n:.0e} | {benchutil.fmt_time(t['fwd'])} | {benchutil.fmt_time(t['vjp'])} | "
                             f"{t['vjp'] / t['fwd']:.2f} | {jt} | {m['fwd']:.0f} | {m['vjp']:.0f} | "
                             f"{m['vjp'] / m['fwd']:.2f} | {jm} |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
