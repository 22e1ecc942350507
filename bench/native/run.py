#!/usr/bin/env python3
"""The native host tier (interp/exec/native) against Numba, JAX and NumPy.

Workloads of issue 12, all in f64, the same data for everyone:
  matmul 512^3 (the nested map/sum of bench/native/workloads.fut),
  one k-means step (2*10^5 points x 16 dims, k = 32),
  Mandelbrot 512^2 with 256 iterations, one n-body step with 4096 bodies,
  fused sum of squares of 10^7, row sums of [10^6][10].
Every contender is timed in-process, best of --runs after a warm-up run
(which compiles: thorn runs with THORN_NATIVE=sync, Numba and JAX JIT on the
first call). Numba uses parallel loops (prange) with as many threads as thorn.
The ratio is thorn / best peer (below 1: thorn is faster). The script also
measures the native tier's compile latency for a new kernel (cold compiler,
then disk-cache hit) and thorn's interpreter tier (THORN_NATIVE=0).

Peers are installed with pip into a virtual environment (--venv, created on
first use); the script re-executes itself there.

  bench/native/run.py [--thorn build/thorn] [--runs 5] [--out table.md] [--venv DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = ["numpy", "numba", "jax[cpu]"]


def ensure_venv(venv):
    """Re-executes the script inside `venv`, creating it and installing the peers first."""
    py = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    probe = subprocess.run([py, "-c", "import numpy, numba, jax"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q"] + PEERS, check=True)
    os.execv(py, [py] + sys.argv)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--thorn", default=os.path.join(ROOT, "build", "thorn"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "bench-venv"))
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--out", help="also write the table to this file")
    return ap.parse_args()


args = parse_args()
ensure_venv(args.venv)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(HERE, ".."))
from benchutil import best_of, fmt_time, write_futhark  # noqa: E402
import benchutil  # noqa: E402


def thorn_bench(entry, data, runs, native, cache_dir):
    env = dict(os.environ, THORN_NATIVE=native, THORN_CACHE_DIR=cache_dir)
    return benchutil.thorn_bench(args.thorn, os.path.join(HERE, "workloads.fut"), entry, data, runs, env=env)


def peers(threads):
    """name -> {workload -> callable(data) -> result}; JAX results are blocked on."""
    import numba
    from numba import njit, prange
    numba.set_num_threads(threads)
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    # ---- NumPy
    def np_kmeans(p, c):
        d = ((p[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        a = d.argmin(axis=1)
        k = c.shape[0]
        counts = np.bincount(a, minlength=k)
        sums = np.zeros_like(c)
        np.add.at(sums, a, p)
        return sums / np.maximum(counts, 1)[:, None]

    def np_mandel(n, iters):
        y, x = np.mgrid[0:n, 0:n].astype(np.float64)
        c = (3.0 * x / n - 2.0) + 1j * (3.0 * y / n - 1.5)
        z = np.zeros_like(c)
        it = np.zeros((n, n), np.int32)
        for _ in range(iters):
            live = np.abs(z) ** 2 < 4.0
            z[live] = z[live] * z[live] + c[live]
            it += live
        return it

    def np_nbody(x, y, z, m, vx, vy, vz):
        dx = x[None, :] - x[:, None]
        dy = y[None, :] - y[:, None]
        dz = z[None, :] - z[:, None]
        r2 = dx * dx + dy * dy + dz * dz + 1e-9
        s = m[None, :] / (r2 * np.sqrt(r2))
        return vx + 0.01 * (dx * s).sum(1), vy + 0.01 * (dy * s).sum(1), vz + 0.01 * (dz * s).sum(1)

    numpy_fns = {
        "matmul": lambda a, b: a @ b,
        "kmeans": np_kmeans,
        "mandelbrot": np_mandel,
        "nbody": np_nbody,
        "sumsq": lambda xs: np.dot(xs, xs),
        "rowsums": lambda xss: xss.sum(axis=1),
    }

    # ---- Numba, parallel loops
    @njit(parallel=True, fastmath=False)
    def nb_matmul(a, b):
        n, m = a.shape
        p = b.shape[1]
        bt = np.ascontiguousarray(b.T)
        out = np.empty((n, p))
        for i in prange(n):
            for j in range(p):
                acc = 0.0
                for k in range(m):
                    acc += a[i, k] * bt[j, k]
                out[i, j] = acc
        return out

    @njit(parallel=True)
    def nb_assign(p, c):
        n, d = p.shape
        k = c.shape[0]
        a = np.empty(n, np.int64)
        for i in prange(n):
            best, bi = np.inf, 0
            for q in range(k):
                s = 0.0
                for j in range(d):
                    t = p[i, j] - c[q, j]
                    s += t * t
                if s < best:
                    best, bi = s, q
            a[i] = bi
        return a

    @njit
    def nb_update(p, a, k):
        n, d = p.shape
        sums = np.zeros((k, d))
        counts = np.zeros(k, np.int64)
        for i in range(n):
            counts[a[i]] += 1
            for j in range(d):
                sums[a[i], j] += p[i, j]
        for q in range(k):
            for j in range(d):
                sums[q, j] /= max(counts[q], 1)
        return sums

    @njit(parallel=True)
    def nb_mandel(n, iters):
        out = np.empty((n, n), np.int32)
        for i in prange(n):
            ci = 3.0 * i / n - 1.5
            for j in range(n):
                cr = 3.0 * j / n - 2.0
                zr = zi = 0.0
                it = 0
                while it < iters and zr * zr + zi * zi < 4.0:
                    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                    it += 1
                out[i, j] = it
        return out

    @njit(parallel=True)
    def nb_nbody(x, y, z, m, vx, vy, vz):
        n = x.shape[0]
        ox, oy, oz = np.empty(n), np.empty(n), np.empty(n)
        for i in prange(n):
            ax = ay = az = 0.0
            for j in range(n):
                dx, dy, dz = x[j] - x[i], y[j] - y[i], z[j] - z[i]
                r2 = dx * dx + dy * dy + dz * dz + 1e-9
                s = m[j] / (r2 * np.sqrt(r2))
                ax += dx * s
                ay += dy * s
                az += dz * s
            ox[i], oy[i], oz[i] = vx[i] + 0.01 * ax, vy[i] + 0.01 * ay, vz[i] + 0.01 * az
        return ox, oy, oz

    @njit(parallel=True)
    def nb_sumsq(xs):
        acc = 0.0
        for i in prange(xs.shape[0]):
            acc += xs[i] * xs[i]
        return acc

    @njit(parallel=True)
    def nb_rowsums(xss):
        n, m = xss.shape
        out = np.empty(n)
        for i in prange(n):
            acc = 0.0
            for j in range(m):
                acc += xss[i, j]
            out[i] = acc
        return out

    numba_fns = {
        "matmul": nb_matmul,
        "kmeans": lambda p, c: nb_update(p, nb_assign(p, c), c.shape[0]),
        "mandelbrot": nb_mandel,
        "nbody": nb_nbody,
        "sumsq": nb_sumsq,
        "rowsums": nb_rowsums,
    }

    # ---- JAX (jit on the CPU)
    @jax.jit
    def jx_kmeans(p, c):
        d = ((p[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        a = d.argmin(axis=1)
        k = c.shape[0]
        counts = jnp.zeros(k, jnp.int64).at[a].add(1)
        sums = jnp.zeros_like(c).at[a].add(p)
        return sums / jnp.maximum(counts, 1)[:, None]

    def jx_mandel_impl(n, iters):
        y, x = jnp.mgrid[0:n, 0:n].astype(jnp.float64)
        cr, ci = 3.0 * x / n - 2.0, 3.0 * y / n - 1.5

        def body(_, s):
            zr, zi, it = s
            live = zr * zr + zi * zi < 4.0
            nzr = jnp.where(live, zr * zr - zi * zi + cr, zr)
            nzi = jnp.where(live, 2.0 * zr * zi + ci, zi)
            return nzr, nzi, it + live.astype(jnp.int32)

        z0 = jnp.zeros((n, n))
        return jax.lax.fori_loop(0, iters, body, (z0, z0, jnp.zeros((n, n), jnp.int32)))[2]

    jx_mandel = jax.jit(jx_mandel_impl, static_argnums=(0, 1))

    @jax.jit
    def jx_nbody(x, y, z, m, vx, vy, vz):
        dx = x[None, :] - x[:, None]
        dy = y[None, :] - y[:, None]
        dz = z[None, :] - z[:, None]
        r2 = dx * dx + dy * dy + dz * dz + 1e-9
        s = m[None, :] / (r2 * jnp.sqrt(r2))
        return vx + 0.01 * (dx * s).sum(1), vy + 0.01 * (dy * s).sum(1), vz + 0.01 * (dz * s).sum(1)

    jax_fns = {
        "matmul": jax.jit(lambda a, b: a @ b),
        "kmeans": jx_kmeans,
        "mandelbrot": jx_mandel,
        "nbody": jx_nbody,
        "sumsq": jax.jit(lambda xs: jnp.dot(xs, xs)),
        "rowsums": jax.jit(lambda xss: xss.sum(axis=1)),
    }

    def blocked(fn, to_device):
        def call(*xs):
            r = fn(*to_device(xs))
            jax.block_until_ready(r)
            return r
        return call

    def jax_args(xs):
        return [jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in xs]

    return {
        "NumPy": numpy_fns,
        "Numba": numba_fns,
        "JAX": {k: blocked(v, jax_args) for k, v in jax_fns.items()},
    }


def workloads(rng):
    """name -> (label, entry, thorn values, peer values)"""
    a, b = rng.random((512, 512)), rng.random((512, 512))
    pts, cen = rng.random((200_000, 16)), rng.random((32, 16))
    bodies = [rng.random(4096) for _ in range(3)] + [rng.random(4096) + 0.5] + [np.zeros(4096)] * 3
    xs = rng.random(10**7)
    xss = rng.random((10**6, 10))
    it = np.array(256, dtype=np.int32)
    n = np.array(512, dtype=np.int64)
    return {
        "matmul": ("matmul 512^3", "matmul", [a, b], [a, b]),
        "kmeans": ("k-means step, 2e5 x 16, k = 32", "kmeans", [pts, cen], [pts, cen]),
        "mandelbrot": ("Mandelbrot 512^2, 256 iterations", "mandelbrot", [n, it], [512, 256]),
        "nbody": ("n-body step, 4096 bodies", "nbody", bodies, bodies),
        "sumsq": ("sum of squares 1e7 (fused)", "sumsq", [xs], [xs]),
        "rowsums": ("row sums [1e6][10]", "rowsums", [xss], [xss]),
    }


def compile_latency(tmp):
    """ms for a new kernel: cold (the compiler runs) and from the disk cache."""
    src = os.path.join(tmp, "latency.fut")
    with open(src, "w") as f:
        f.write(f"-- {time.time()}\nentry main (xs: []f64): []f64 = map (\\x -> f64.sin x * {time.time_ns() % 9973}.5 + f64.cos x) xs\n")
    data = os.path.join(tmp, "latency.bin")
    write_futhark(data, np.arange(1000, dtype=np.float64))
    cache = tempfile.mkdtemp(prefix="thorn-latency-")
    out = []
    for _ in range(2):
        env = dict(os.environ, THORN_NATIVE="sync", THORN_CACHE_DIR=cache, THORN_LOG_PLAN="1", THORN_HOST_MIN_WORK="0")
        r = subprocess.run([args.thorn, "bench", "--backend", "host", "-r", "1", "--dataset", data, src],
                           capture_output=True, text=True, env=env)
        ms = [float(m) for m in re.findall(r"compiled in ([0-9.]+) ms", r.stderr)]
        out.append(max(ms) if ms else float("nan"))
    return out


def main():
    rng = np.random.default_rng(42)
    threads = os.cpu_count()
    tmp = tempfile.mkdtemp(prefix="thorn-native-bench-")
    cache = os.path.join(tmp, "cache")
    ws = workloads(rng)
    chosen = args.only.split(",") if args.only else list(ws)
    contenders = peers(threads)
    rows = []
    for name in chosen:
        label, entry, tvals, pvals = ws[name]
        path = os.path.join(tmp, name + ".bin")
        write_futhark(path, *tvals)
        t_native = thorn_bench(entry, path, args.runs, "sync", cache)
        t_interp = thorn_bench(entry, path, max(1, min(args.runs, 3)), "0", cache)
        os.unlink(path)
        times = {}
        for peer, fns in contenders.items():
            times[peer] = best_of(lambda: fns[name](*pvals), args.runs)
        best_peer = min(times, key=times.get)
        rows.append((label, t_native, t_interp, times, best_peer))
        print(f"{label:<36} thorn {fmt_time(t_native):>9} (interp {fmt_time(t_interp):>9})  " +
              "  ".join(f"{p} {fmt_time(t):>9}" for p, t in times.items()), flush=True)
    cold, warm = compile_latency(tmp)
    peers_names = list(contenders)
    lines = ["| workload | thorn native | thorn interpreted | " + " | ".join(peers_names) +
             " | thorn / best peer |", "|---|---:|---:|" + "---:|" * len(peers_names) + "---:|"]
    ratios = []
    for label, tn, ti, times, best in rows:
        ratio = tn / times[best]
        ratios.append(ratio)
        lines.append(f"| {label} | {fmt_time(tn)} | {fmt_time(ti)} | " +
                     " | ".join(fmt_time(times[p]) for p in peers_names) + f" | {ratio:.2f} ({best}) |")
    geo = float(np.exp(np.mean(np.log(ratios))))
    lines.append(f"| geometric mean | | | " + " | " * (len(peers_names) - 1) + f" | {geo:.2f} |")
    lines += ["", f"Compile latency of a new kernel (a SegMap with sin and cos): {cold:.0f} ms with the compiler, "
              f"{warm:.1f} ms from the disk cache."]
    benchutil.emit_table(lines, args.out)


if __name__ == "__main__":
    main()
