#!/usr/bin/env python3
"""TAB completion in `thorn repl`, through a pseudo-terminal (readline only
completes on a terminal). Usage: repl_completion.py THORN

Types partial words followed by TAB and checks what the completed inputs
did: a name from the loaded program, a module member, a prelude function,
a :command and a file name after :load. Exits 1 on the first failure."""
import os
import pty
import select
import sys
import tempfile
import time

PROGRAM = """
def my_unique_value : i32 = 42
module my_module = { def inner_thing : i32 = 7 }
"""

# (keys typed, text the session must print in response; the terminal ends
# lines with \r\n, so "\r\n7\r\n" is a line holding just 7)
CASES = [
    ("my_uniq\t\n", "\r\n42\r\n"),           # a name of the loaded program
    ("my_module.inn\t\n", "\r\n7\r\n"),       # a member of its module
    ("f32.sq\t16f32\n", "\r\n4.0\r\n"),       # a prelude module's member: f32.sqrt 16f32
    (":typ\t1i8\n", "1i8 : i8"),               # a command: :type
    (":load completion_tar\t\n", "Loading completion_target.fut"),  # a file name
    ("still_there\n", "\r\n1234\r\n"),         # ... and that file was loaded
]


def read_until(fd, needle, timeout=20.0):
    out = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if needle.encode() in out:
            return True, out.decode(errors="replace")
    return False, out.decode(errors="replace")


def main():
    thorn = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "prog.fut"), "w") as f:
            f.write(PROGRAM)
        with open(os.path.join(work, "completion_target.fut"), "w") as f:
            f.write("def still_there : i32 = 1234\n")
        env = dict(os.environ, HOME=work, TERM="dumb", INPUTRC="/dev/null", THORN_GPU="0")
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(work)
            os.execve(thorn, [thorn, "repl", "prog.fut"], env)
        ok, seen = read_until(fd, "[0]>")
        if not ok:
            print("no prompt from thorn repl; it printed:\n" + seen)
            return 1
        for keys, expected in CASES:
            os.write(fd, keys.encode())
            ok, seen = read_until(fd, expected)
            if not ok:
                print(f"typing {keys!r}: expected {expected!r}; the terminal showed:\n{seen}")
                os.kill(pid, 9)
                return 1
            print(f"ok: {keys!r} -> {expected!r}")
        os.write(fd, b":quit\n")
        os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
