#!/usr/bin/env python3
"""The README's main command, `thorn literate examples/mandelbrot.fut`, run
into a temporary directory (-o): it must succeed and write Markdown that
links one picture, a valid PNG of the size the directive asks for (read
back from the IHDR chunk). Usage: literate_example.py THORN EXAMPLE.fut"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 480, 320  # -- > :img image 480i64 320i64 200i32


def png_size(path):
    with open(path, "rb") as f:
        data = f.read(33)
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    length, = struct.unpack(">I", data[8:12])
    crc, = struct.unpack(">I", data[29:33])
    if length != 13 or zlib.crc32(data[12:29]) != crc:
        raise ValueError(f"{path} has a broken IHDR chunk")
    return struct.unpack(">II", data[16:24])


def main():
    thorn, example = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        md = os.path.join(work, "mandelbrot.md")
        run = subprocess.run([thorn, "literate", "-o", md, example], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"thorn literate failed ({run.returncode}):\n{run.stderr}")
            return 1
        text = open(md).read()
        links = [line[4:-1] for line in text.splitlines() if line.startswith("![](")]
        if len(links) != 1 or not links[0].startswith("mandelbrot-img/"):
            print(f"expected one picture in mandelbrot-img/, found {links}:\n{text}")
            return 1
        size = png_size(os.path.join(work, links[0]))
        if size != (WIDTH, HEIGHT):
            print(f"{links[0]} is {size[0]}x{size[1]}, expected {WIDTH}x{HEIGHT}")
            return 1
        if "```\n> escape 100i32 0.0f64 0.0f64\n```\n\n```\n100i32\n```\n" not in text:
            print(f"the value directive's result is missing:\n{text}")
            return 1
        print(f"ok: {links[0]} is a {WIDTH}x{HEIGHT} PNG")
    return 0


if __name__ == "__main__":
    sys.exit(main())
