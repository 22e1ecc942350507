#!/usr/bin/env python3
"""Ctrl-C in a long session (issue 15), through a pseudo-terminal.

For each backend: start `thorn repl`, bind a name, start a long parallel
computation, send Ctrl-C (\\x03) after about a second, and check that
  - the prompt comes back within BOUND seconds, saying "Interrupted",
  - the earlier binding is still readable,
  - the process stops using CPU (no worker keeps running).
Then SIGINT during `thorn run`: exit status 130 and a clear message.

usage: repl_interrupt.py THORN [BOUND_SECONDS]
"""
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time

THORN = sys.argv[1]
BOUND = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
LONG = "reduce (+) 0 (map (\\i -> loop s = 0i64 for j < 100000 do s + (i ^ j)) (iota 1000000))"
failures = []


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


class Repl:
    def __init__(self, backend, home):
        env = dict(os.environ, HOME=home, THORN_GPU="0", TERM="dumb")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(THORN, [THORN, "repl", "--backend", backend], env)
        self.out = b""

    def expect(self, text, timeout):
        """Reads until `text` appears after what was read so far; returns the seconds taken."""
        start = time.monotonic()
        want = text.encode()
        while want not in self.out:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise TimeoutError(f"no {text!r} within {timeout}s; output so far: {self.out[-400:]!r}")
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise EOFError(f"thorn ended; output: {self.out[-400:]!r}")
                self.out += chunk
        taken = time.monotonic() - start
        self.out = self.out[self.out.index(want) + len(want):]
        return taken

    def send(self, s):
        os.write(self.fd, s.encode())

    def close(self):
        try:
            self.send(":quit\r")
            self.expect("Leaving thorn repl", 5)
        finally:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            os.close(self.fd)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def repl_case(backend, home):
    r = Repl(backend, home)
    try:
        r.expect("[0]> ", 30)
        r.send("let keep = 41i64\r")
        r.expect("[1]> ", 30)
        r.send(LONG + "\r")
        time.sleep(1.0)
        busy0 = cpu_ticks(r.pid)
        time.sleep(0.3)
        busy = cpu_ticks(r.pid) - busy0
        check(busy > 5, f"{backend}: the long computation runs ({busy} ticks in 0.3 s)")
        t0 = time.monotonic()
        r.send("\x03")
        r.expect("Interrupted", BOUND + 5)
        r.expect("[2]> ", BOUND + 5)
        took = time.monotonic() - t0
        print(f"     {backend}: Ctrl-C to prompt: {took * 1000:.0f} ms", flush=True)
        check(took <= BOUND, f"{backend}: prompt back within {BOUND} s after Ctrl-C ({took * 1000:.0f} ms)")
        idle0 = cpu_ticks(r.pid)
        time.sleep(0.5)
        idle = cpu_ticks(r.pid) - idle0
        check(idle <= 5, f"{backend}: no CPU used after the prompt came back ({idle} ticks in 0.5 s)")
        r.send("keep + 1\r")
        r.expect("42", 10)
        r.expect("[3]> ", 10)
        check(True, f"{backend}: the earlier binding is intact")
    except (TimeoutError, EOFError) as e:
        check(False, f"{backend}: {e}")
    finally:
        r.close()


def run_case(tmp):
    prog = os.path.join(tmp, "long.fut")
    with open(prog, "w") as f:
        f.write("def main (n: i64) = " + LONG.replace("1000000", "n") + "\n")
    env = dict(os.environ, THORN_GPU="0")
    p = subprocess.Popen([THORN, "run", "--backend", "host", prog], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdin.write(b"1000000i64\n")
    p.stdin.close()
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(BOUND + 5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        check(False, "thorn run: did not stop after SIGINT")
        return
    took = time.monotonic() - t0
    err = p.stderr.read().decode()
    print(f"     thorn run: SIGINT to exit: {took * 1000:.0f} ms, status {rc}, stderr {err.strip()!r}", flush=True)
    check(rc == 130, f"thorn run: exit status 130 after SIGINT (got {rc})")
    check("interrupted" in err, "thorn run: says it was interrupted")
    check(took <= BOUND, f"thorn run: exits within {BOUND} s")


with tempfile.TemporaryDirectory() as tmp:
    for backend in ["host", "reference"]:
        repl_case(backend, tmp)
    run_case(tmp)

sys.exit(1 if failures else 0)
