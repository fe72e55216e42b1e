#!/usr/bin/env python3
"""Measures the edge-tile encoder settings of a HEIC -> HEIC crop off the
tile grid on the real iPhone photos: for each x265 setting and quality, the
median wall time, peak RSS, output bytes and the PSNR of the re-encoded
area against the source's own decode at the rect (the copied tiles are
left out: they are identical). The rect is taken in stored coordinates
(--orientation 1) so that the tile grid is the file's own.

    heif_edge_settings.py CROPKIT TESTDATA WORKDIR [--runs N]

CROPKIT_X265_PARAMETERS replaces cropkit's edge-tile encoder parameters
(name=value,...; the empty string: libheif's defaults) for one run.
"""
import math
import os
import statistics
import subprocess
import time

from PIL import Image, ImageChops, ImageDraw
from bench_common import photo_arguments

PHOTOS = {
    # stored size, tile size
    "12mp": ("pillow-heif/pug.heic", (4032, 3024), (512, 512)),
    "24mp": ("libvips/apple-heic-gainmap.heic", (5712, 4284), (640, 896)),
}
SETTINGS = [
    ("libheif's defaults (preset slow, tu-intra-depth 2)", ""),
    ("preset medium", "preset=medium"),
    ("preset ultrafast", "preset=ultrafast"),
    ("ultrafast, tu-intra-depth 1, rd 1", "preset=ultrafast,tu-intra-depth=1,x265:rd=1"),
    ("the same, one thread an encoder (cropkit's until issue 55)",
     "preset=ultrafast,tu-intra-depth=1,x265:rd=1,x265:pools=1,x265:frame-threads=1"),
    ("the same, 16x16 coding tree units (cropkit's)",
     "preset=ultrafast,tu-intra-depth=1,x265:rd=1,x265:pools=1,x265:frame-threads=1,x265:ctu=16"),
]
QUALITIES = [50, 60, 70, 80, 90]


def run(cropkit, args, environment=None):
    env = dict(os.environ, **(environment or {}))
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", cropkit, "crop"] + args + ["-f", "-q"],
                            env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"cropkit failed: {result.stderr.strip()[-300:]}")
    return elapsed, int(result.stderr.strip().splitlines()[-1])


def psnr(a_path, b_path, copied):
    a, b = Image.open(a_path).convert("RGB"), Image.open(b_path).convert("RGB")
    mask = Image.new("L", a.size, 255)
    if copied:
        x0, y0, x1, y1 = copied
        ImageDraw.Draw(mask).rectangle((x0, y0, x1 - 1, y1 - 1), fill=0)
    total = count = 0
    for channel in ImageChops.difference(a, b).split():
        histogram = channel.histogram(mask=mask)
        total += sum(i * i * n for i, n in enumerate(histogram))
        count += sum(histogram)
    return math.inf if total == 0 else 10 * math.log10(255 * 255 * count / total)


def main():
    args = photo_arguments(3)
    print("| photo, centre 2000x1500 off the grid | x265 setting | quality | median s | peak MB | bytes | PSNR of the re-encoded area, dB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for photo, (path, (width, height), (tw, th)) in PHOTOS.items():
        source = os.path.join(args.testdata, "heif", path)
        x, y, w, h = width // 2 - 1000, height // 2 - 750, 2000, 1500
        rect = ["--pixels", f"{x},{y},{w},{h}", "--orientation", "1"]
        # The tiles the rect holds whole are copied: left out of the PSNR.
        cx0, cy0 = -(-x // tw) * tw, -(-y // th) * th
        cx1, cy1 = (x + w) // tw * tw, (y + h) // th * th
        copied = (cx0 - x, cy0 - y, cx1 - x, cy1 - y) if cx1 > cx0 and cy1 > cy0 else None
        reference = os.path.join(args.workdir, f"edge-{photo}-reference.png")
        run(args.cropkit, [source, "-o", reference] + rect)
        for label, setting in SETTINGS:
            for quality in QUALITIES if setting in (SETTINGS[-1][1], SETTINGS[-2][1]) else [90]:
                output = os.path.join(args.workdir, f"edge-{photo}.heic")
                environment = {"CROPKIT_X265_PARAMETERS": setting}
                samples = [run(args.cropkit, [source, "-o", output, "--quality", str(quality)] + rect, environment)
                           for _ in range(args.runs)]
                decoded = os.path.join(args.workdir, f"edge-{photo}-decoded.png")
                run(args.cropkit, [output, "-o", decoded, "--pixels", f"0,0,{w},{h}", "--orientation", "1"])
                seconds = statistics.median(s for s, _ in samples)
                peak = max(kb for _, kb in samples) / 1024
                print(f"| {photo} | {label} | {quality} | {seconds:.3f} | {peak:.1f} | {os.path.getsize(output)} | "
                      f"{psnr(reference, decoded, copied):.2f} |", flush=True)


if __name__ == "__main__":
    main()
