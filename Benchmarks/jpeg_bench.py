#!/usr/bin/env python3
"""Times `cropkit crop` writing JPEG against jpegtran (lossless, DCT domain)
and against libvips and Pillow (decode, crop, re-encode at the source's
quality 92) on the same crops of real phone photos, in one run, and prints
a Markdown table: median wall time, peak RSS (GNU time), output bytes, and
the ratios the JPEG issue sets goals for.

    jpeg_bench.py CROPKIT WORKDIR [--runs N]

Inputs are made by make_inputs.py from the Apple HEICs in the shared test
data: JPEG quality 92, 4:2:0, as a phone's compatible export. Tools run in
turn within each round, so no tool always gets a warmer machine.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

# name: (input, (x, y, w, h) on the 16-px block grid at its top-left corner)
CASES = {
    "12mp-centre": ("iphone13pro.jpg", (1008, 752, 2000, 1500)),
    "12mp-top-third": ("iphone13pro.jpg", (1008, 0, 2000, 1000)),
    "12mp-bottom-right": ("iphone13pro.jpg", (2032, 1520, 2000, 1504)),
    "24mp-centre": ("iphone16.jpg", (1136, 2112, 2000, 1500)),
    "24mp-top-third": ("iphone16.jpg", (1136, 0, 3000, 1900)),
}

PILLOW = """
import sys
from PIL import Image
x, y, w, h = map(int, sys.argv[3:7])
Image.open(sys.argv[1]).crop((x, y, x + w, y + h)).save(sys.argv[2], quality=92, subsampling=2, optimize=True)
"""


def commands(tool, cropkit, src, out, rect):
    x, y, w, h = rect
    if tool == "cropkit lossless":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "-f", "-q"]
    if tool == "jpegtran -copy all":
        return ["jpegtran", "-crop", f"{w}x{h}+{x}+{y}", "-copy", "all", "-outfile", out, src]
    if tool == "jpegtran -optimize":
        return ["jpegtran", "-crop", f"{w}x{h}+{x}+{y}", "-optimize", "-copy", "all", "-outfile", out, src]
    # The re-encoded path: the same rect one pixel right (and narrower), off the grid.
    if tool == "cropkit re-encoded":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x + 1},{y},{w - 1},{h}", "-f", "-q"]
    if tool == "vips":
        return ["vips", "crop", src, out + "[Q=92,optimize_coding]", str(x + 1), str(y), str(w - 1), str(h)]
    if tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x + 1), str(y), str(w - 1), str(h)]
    raise ValueError(tool)


TOOLS = ["cropkit lossless", "jpegtran -copy all", "jpegtran -optimize", "cropkit re-encoded", "vips", "Pillow"]


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_kb(command):
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, check=True, capture_output=True, text=True)
    return int(result.stderr.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print("| case | tool | median s | peak MB | bytes | ratio |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for name, (source, rect) in CASES.items():
        src = os.path.join(args.workdir, source)
        times = {tool: [] for tool in TOOLS}
        outs = {tool: os.path.join(args.workdir, f"out-{name}-{i}.jpg") for i, tool in enumerate(TOOLS)}
        for _ in range(args.runs):
            for tool in TOOLS:
                times[tool].append(timed(commands(tool, args.cropkit, src, outs[tool], rect)))
        medians = {tool: statistics.median(values) for tool, values in times.items()}
        for tool in TOOLS:
            kb = peak_kb(commands(tool, args.cropkit, src, outs[tool], rect))
            size = os.path.getsize(outs[tool])
            if tool.startswith("jpegtran"):
                ratio = f"{medians[tool] / medians['cropkit lossless']:.2f}x cropkit lossless's time"
            elif tool in ("vips", "Pillow"):
                ratio = f"{medians[tool] / medians['cropkit re-encoded']:.2f}x cropkit re-encoded's time"
            else:
                ratio = ""
            print(f"| {name} {rect[2]}x{rect[3]} | {tool} | {medians[tool]:.3f} | {kb / 1024:.1f} | {size} | {ratio} |")
        crop_coefficient_mb = rect[2] * rect[3] * 3 / 2 ** 20
        print(f"| {name} | (the crop's coefficients) | | {crop_coefficient_mb:.1f} | | goal: cropkit peak <= {crop_coefficient_mb + 32:.1f} MB |")


if __name__ == "__main__":
    main()
