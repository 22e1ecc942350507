#!/usr/bin/env python3
"""Runs Futhark's own test suite (a checkout of github.com/diku-dk/futhark,
not part of this repository) through `thorn test`, one file per process so
that one slow or runaway file cannot stop the rest, and reports the pass
rates the way docs/language-coverage.md does:

  python3 bench/real/futhark_suite.py --thorn build/thorn --tests /path/to/futhark/tests \\
      [--backend host] [--validate] [--timeout 20] [--jobs 2] [--memory-gb 8] [--json out.json]

--validate runs every nest, however small, through the flattener
(THORN_HOST_MIN_WORK=0) and checks it against the reference backend
(`thorn test --validate`): Futhark's suite as a net for flattening bugs.

A case is an expected rejection when its file's test block has `error:` and
no input. A file that runs past --timeout counts as one failed runnable case.
"""
import argparse, collections, concurrent.futures, json, os, re, resource, subprocess, sys, tempfile


def block_kind(path):
    has_err = has_input = in_block = False
    for line in open(path, errors="replace").read().split("\n"):
        if line.strip() == "-- ==":
            in_block = True
            continue
        if in_block:
            if not line.startswith("--"):
                in_block = False
                continue
            has_err |= re.match(r"^--\s*error:", line) is not None
            has_input |= re.search(r"\binput\b", line) is not None
    return "rejection" if has_err and not has_input else "runnable"


def run_file(args, path):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    limit = int(args.memory_gb * (1 << 30))
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        extra = ["--validate"] if args.validate else []
        env = dict(os.environ, THORN_HOST_MIN_WORK="0") if args.validate else None
        subprocess.run([args.thorn, "test", "--backend", args.backend, "--json", out] + extra + [path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=args.timeout, preexec_fn=cap,
                       env=env)
        with open(out) as f:
            return path, json.load(f)["cases"], False
    except (subprocess.TimeoutExpired, json.JSONDecodeError, FileNotFoundError, KeyError):
        return path, [], True
    finally:
        if os.path.exists(out):
            os.unlink(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--thorn", default="build/thorn")
    ap.add_argument("--tests", required=True)
    ap.add_argument("--backend", default="host")
    ap.add_argument("--validate", action="store_true", help="flatten every nest and check it against the reference")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--memory-gb", type=float, default=8)
    ap.add_argument("--json")
    args = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.tests) for f in fs if f.endswith(".fut"))
    cases, timeouts = [], []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, cs, timed_out in pool.map(lambda p: run_file(args, p), files):
            if timed_out:
                timeouts.append(path)
            for c in cs:
                c["kind"] = block_kind(c["file"])
            cases += cs
    def tally(kind):
        cs = [c for c in cases if c["kind"] == kind]
        passed = sum(c["status"] == "passed" for c in cs)
        failed = sum(c["status"] == "failed" for c in cs)
        return cs, passed, failed
    run, rp, rf = tally("runnable")
    rej, jp, jf = tally("rejection")
    worded = sum(c["status"] == "failed" and "does not match" in c["message"] for c in rej)
    rf += len(timeouts)
    print(f"{len(files)} files, {len(cases)} cases, {len(timeouts)} files past {args.timeout:g} s")
    print(f"runnable: {rp} of {rp + rf} pass ({100.0 * rp / max(1, rp + rf):.1f}%; timed-out files count as failures)")
    print(f"expected rejections: {jp} of {jp + jf} with Futhark's message ({100.0 * jp / max(1, jp + jf):.1f}%), "
          f"{jp + worded} rejected at all ({100.0 * (jp + worded) / max(1, jp + jf):.1f}%)")
    reasons = collections.Counter()
    for c in run:
        if c["status"] == "failed":
            m = re.sub(r"\S+\.fut:\d+:\d+(-\d+)?:?", "", c["message"].split("\n")[0])
            reasons[re.sub(r"\d+", "N", m).strip()[:100]] += 1
    print("most common runnable failures:")
    for r, n in reasons.most_common(15):
        print(f"  {n:4d}  {r}")
    for t in timeouts:
        print(f"  timeout  {os.path.relpath(t, args.tests)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": cases, "timeouts": timeouts}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
