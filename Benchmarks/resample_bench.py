#!/usr/bin/env python3
"""Times turned and resized crops: `cropkit crop` (release) against libvips
(`vips affine`, `vips extract_area` + `vips resize`, `vipsthumbnail --crop`)
and Pillow (crop + rotate(BICUBIC) + resize(LANCZOS), with draft() for
JPEG shrink-on-load) on real phone photos, in one run, and prints a
Markdown table: median wall time, peak RSS (GNU time), and the ratios the
straighten issue sets goals for (2x libvips, 8x Pillow; three variants at
most 1.3x one; peak RSS at most the decoded region + 32 MB).

    resample_bench.py CROPKIT WORKDIR [--runs N]

Inputs are make_inputs.py's JPEGs of the Apple HEICs (quality 92, 4:2:0).
Every output is a JPEG at quality 92. Tools run in turn within each round.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

PILLOW = r"""
import sys, math
from PIL import Image
mode, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
x, y, w, h, angle, width, height = map(float, sys.argv[4:11])
image = Image.open(src)
if mode == "turn":
    # The quad's bounding box, turned about its centre (Pillow turns
    # anticlockwise), then the centre rect.
    radians = math.radians(angle)
    bw = w * abs(math.cos(radians)) + h * abs(math.sin(radians))
    bh = w * abs(math.sin(radians)) + h * abs(math.cos(radians))
    cx, cy = x + w / 2, y + h / 2
    box = (int(cx - bw / 2), int(cy - bh / 2), int(math.ceil(cx + bw / 2)), int(math.ceil(cy + bh / 2)))
    region = image.crop(box).rotate(-angle, Image.Resampling.BICUBIC)
    left = (region.width - w) / 2
    top = (region.height - h) / 2
    result = region.crop((int(left), int(top), int(left + w), int(top + h)))
    if width != w:
        result = result.resize((int(width), int(height)), Image.Resampling.LANCZOS)
else:
    # draft() picks the DCT scale (1/2, 1/4, 1/8) that keeps the crop at
    # least the output's size.
    scale = min(w / width, h / height)
    image.draft("RGB", (int(image.width / scale), int(image.height / scale)))
    factor = image.width / Image.open(src).width
    box = (x * factor, y * factor, (x + w) * factor, (y + h) * factor)
    result = image.resize((int(width), int(height)), Image.Resampling.LANCZOS, box=box)
result.save(out, quality=92, subsampling=2)
"""

# name: (input, kind, (x, y, w, h) or None, angle, output width)
CASES = [
    ("12mp-centre-straightened-3.5", "iphone13pro.jpg", "turn", (1016, 762, 2000, 1500), 3.5, None),
    ("24mp-centre-straightened-3.5", "iphone16.jpg", "turn", (642, 1356, 3000, 3000), 3.5, None),
    ("12mp-centre-to-1080-wide", "iphone13pro.jpg", "resize", (1016, 762, 2000, 1500), 0, 1080),
    ("24mp-centre-to-1080-wide", "iphone16.jpg", "resize", (642, 1356, 3000, 3000), 0, 1080),
    ("24mp-avatar-512", "iphone16.jpg", "avatar", (0, 714, 4284, 4284), 0, 512),
]


def cropkit_command(cropkit, kind, src, out, rect, angle, width):
    x, y, w, h = rect
    command = [cropkit, "crop", src, "-o", out, "-f", "-q"]
    if kind == "turn":
        return command + ["--pixels", f"{x},{y},{w},{h}", "--angle", str(angle)]
    if kind == "resize":
        return command + ["--pixels", f"{x},{y},{w},{h}", "--width", str(width)]
    return command + ["--inside", "--aspect", "1:1", "--size", f"{width}x{width}"]


def vips_commands(kind, src, out, rect, angle, width, workdir):
    x, y, w, h = rect
    if kind == "turn":
        # out = R(angle)(in - c) + c, the output area O in that frame.
        info = subprocess.run(["vipsheader", "-f", "width", src], capture_output=True, text=True)
        iw = int(info.stdout)
        ih = int(subprocess.run(["vipsheader", "-f", "height", src], capture_output=True, text=True).stdout)
        radians = math.radians(angle)
        c, s = math.cos(radians), math.sin(radians)
        cx, cy = iw / 2, ih / 2
        odx = cx - (c * cx - s * cy)
        ody = cy - (s * cx + c * cy)
        return [["vips", "affine", src, out + "[Q=92]", f"{c} {-s} {s} {c}",
                 "--odx", str(odx), "--ody", str(ody), "--oarea", f"{x} {y} {w} {h}"]]
    if kind == "resize":
        middle = os.path.join(workdir, "vips-middle.v")
        return [["vips", "extract_area", src, middle, str(x), str(y), str(w), str(h)],
                ["vips", "resize", middle, out + "[Q=92]", str(width / w)]]
    return [["vipsthumbnail", src, "--size", f"{width}x{width}", "--smartcrop", "centre", "-o", out + "[Q=92]"]]


def pillow_command(kind, src, out, rect, angle, width):
    x, y, w, h = rect
    if kind == "turn":
        size = (w, h)
    else:
        size = (width, round(h * width / w))
    mode = "turn" if kind == "turn" else "resize"
    return [sys.executable, "-c", PILLOW, mode, src, out, str(x), str(y), str(w), str(h), str(angle), str(size[0]), str(size[1])]


def timed(commands):
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_mb(commands):
    peak = 0
    for command in commands:
        result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, check=True, capture_output=True, text=True)
        peak = max(peak, int(result.stderr.strip().splitlines()[-1]))
    return peak / 1024


def region_mb(cropkit, command):
    """The decoded region cropkit reads (its read rect, at the shrink-on-load), in MB."""
    report = json.loads(subprocess.run([c for c in command if c != "-q"] + ["--json"], check=True,
                                       capture_output=True, text=True).stdout)
    mapping = report["mapping"]
    read = mapping.get("read", {})
    shrink = mapping.get("shrinkOnLoad", 1)
    return read.get("width", 0) * read.get("height", 0) * 3 / shrink ** 2 / 2 ** 20


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print("| case | tool | median s | peak MB | ratio (tool / cropkit) |")
    print("| --- | --- | ---: | ---: | --- |")
    for name, source, kind, rect, angle, width in CASES:
        src = os.path.join(args.workdir, source)
        tools = {
            "cropkit": [cropkit_command(args.cropkit, kind, src, os.path.join(args.workdir, f"rs-{name}-ck.jpg"), rect, angle, width)],
            "libvips": vips_commands(kind, src, os.path.join(args.workdir, f"rs-{name}-vips.jpg"), rect, angle, width, args.workdir),
            "Pillow": [pillow_command(kind, src, os.path.join(args.workdir, f"rs-{name}-pil.jpg"), rect, angle, width)],
        }
        times = {tool: [] for tool in tools}
        for _ in range(args.runs):
            for tool, commands in tools.items():
                times[tool].append(timed(commands))
        medians = {tool: statistics.median(values) for tool, values in times.items()}
        for tool, commands in tools.items():
            ratio = "" if tool == "cropkit" else f"{medians[tool] / medians['cropkit']:.2f}x (goal {'2' if tool == 'libvips' else '8'}x)"
            print(f"| {name} | {tool} | {medians[tool]:.3f} | {peak_mb(commands):.1f} | {ratio} |")
        region = region_mb(args.cropkit, tools["cropkit"][0])
        print(f"| {name} | (cropkit's decoded region) | | {region:.1f} | goal: cropkit peak <= {region + 32:.1f} MB |")
    # Three variants of one photo against one.
    src = os.path.join(args.workdir, "iphone16.jpg")
    one = [args.cropkit, "crop", src, "-f", "-q", "--width", "1080",
           "-o", os.path.join(args.workdir, "rs-v-1x1.jpg"), "--inside", "--aspect", "1:1"]
    three = one + ["-o", os.path.join(args.workdir, "rs-v-4x5.jpg"), "--inside", "--aspect", "4:5",
                   "-o", os.path.join(args.workdir, "rs-v-16x9.jpg"), "--inside", "--aspect", "16:9"]
    times = {"one": [], "three": []}
    for _ in range(args.runs):
        times["one"].append(timed([one]))
        times["three"].append(timed([three]))
    m1, m3 = statistics.median(times["one"]), statistics.median(times["three"])
    print(f"| 24mp variants at 1080 wide | cropkit, one (1:1) | {m1:.3f} | {peak_mb([one]):.1f} | |")
    print(f"| 24mp variants at 1080 wide | cropkit, three (1:1, 4:5, 16:9) | {m3:.3f} | {peak_mb([three]):.1f} | {m3 / m1:.2f}x one's time (goal <= 1.3x) |")


if __name__ == "__main__":
    main()
