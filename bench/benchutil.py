"""Helpers shared by the host benchmarks (bench/host/run.py, bench/native/run.py):
Futhark's binary data format, `thorn bench --json`, best-of-N timing."""
import json
import os
import subprocess
import tempfile
import time

import numpy as np

FUT_TYPES = {np.dtype("float64"): b" f64", np.dtype("int64"): b" i64", np.dtype("int32"): b" i32"}


def write_futhark(path, *values):
    """Values (arrays or NumPy scalars) in Futhark's binary data format, one after the other."""
    with open(path, "wb") as f:
        for a in values:
            a = np.asarray(a)  # (ascontiguousarray would make a scalar a 1-element array)
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            f.write(b"b" + bytes([2, a.ndim]) + FUT_TYPES[a.dtype])
            f.write(np.array(a.shape, dtype="<u8").tobytes())
            f.write(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())


def thorn_bench(thorn, program, entry, data, runs, backend="host", env=None):
    """Best runtime in seconds of `entry` on the dataset file, via `thorn bench --json`
    (in-process, after a warm-up run)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as j:
        json_path = j.name
    cmd = [thorn, "bench", "--backend", backend, "-r", str(runs), "-e", entry, "--dataset", data,
           "--json", json_path, program]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    with open(json_path) as f:
        results = json.load(f)
    os.unlink(json_path)
    (bench,) = [v for k, v in results.items() if k.endswith(":" + entry)]
    (ds,) = bench["datasets"].values()
    return min(ds["runtimes"]) / 1e6


def best_of(fn, runs):
    """Best of `runs` timed calls after one warm-up call (which JIT compilers use to compile)."""
    fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def fmt_time(s):
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} us"


def emit_table(lines, out=None):
    """Prints the markdown table's lines, and writes them to `out` when given."""
    table = "\n".join(lines)
    print()
    print(table)
    if out:
        with open(out, "w") as f:
            f.write(table + "\n")
