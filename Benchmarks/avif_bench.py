#!/usr/bin/env python3
"""Times `cropkit crop` on a real 12 MP phone photo saved as AVIF against
libvips and Pillow doing the same crop, in one run, and prints a Markdown
table: median wall time, peak RSS (GNU time), output bytes, ratios.

    avif_bench.py CROPKIT TESTDATA WORKDIR [--runs N] [--only CASE]

The photo is the shared test data's `avif/generated/photo_pug_4032x3024_q60.avif`
(pug.heic, iPhone 13 Pro, one coded image, quality 60, with its EXIF and
Display P3 profile), and the same photo as a grid of 504x504 tiles made in
WORKDIR by avifenc (Debian's libavif-bin 0.11, --grid 8x6, quantizer 24-26), as a
server that tiles writes it. AVIF outputs are encoded at quality 80 by all
three (cropkit's default; aom through libheif for cropkit and vips, through
libavif for Pillow, each at its own speed: 9 for cropkit). cropkit decodes
AV1 with libavif and dav1d; the row "cropkit-libheif" is the same build
decoding with libheif instead (CROPKIT_AV1_DECODER=libheif), the measurement
behind that choice. The default case
comes first (a centre crop off any grid), then a 300x300 avatar, then the
grid's cases and its best case (a rect on its tiles, copied). Tools run in
turn within each round.
"""
import json
import os
import subprocess
import sys

from bench_common import run_case, photo_arguments

PHOTO = "avif/generated/photo_pug_4032x3024_q60.avif"
GRID = "grid"  # made from PHOTO in WORKDIR by make_grid()
WIDTH, HEIGHT = 4032, 3024
QUALITY = 80

PILLOW = """
import sys
from PIL import Image
x, y, w, h, q = map(int, sys.argv[3:8])
image = Image.open(sys.argv[1]).crop((x, y, x + w, y + h))
image.save(sys.argv[2], **({"quality": q} if sys.argv[2].endswith(".avif") else {}))
"""


def cases():
    centre = (WIDTH // 2 - 1000 + 1, HEIGHT // 2 - 750 + 1, 2000, 1500)
    avatar = (WIDTH // 2 - 150 + 1, HEIGHT // 2 - 150 + 1, 300, 300)
    on_tiles = (1008, 504, 2016, 1512)
    yield "12mp-avif-centre", PHOTO, centre, "avif"
    yield "12mp-avif-centre", PHOTO, centre, "png"
    yield "12mp-avif-300x300", PHOTO, avatar, "avif"
    yield "12mp-avif-300x300", PHOTO, avatar, "png"
    yield "12mp-grid-avif-centre", GRID, centre, "avif"
    yield "12mp-grid-avif-300x300", GRID, avatar, "avif"
    yield "12mp-grid-avif-300x300", GRID, avatar, "png"
    yield "12mp-grid-avif-on-tiles", GRID, on_tiles, "avif"


def make_grid(src, workdir):
    """The photo as a grid AVIF of 8x6 tiles (avifenc --grid)."""
    path = os.path.join(workdir, "photo_pug_grid8x6_q60.avif")
    if not os.path.exists(path):
        from PIL import Image
        png = os.path.join(workdir, "photo_pug_for_grid.png")
        Image.open(src).convert("RGB").save(png)
        subprocess.run(["avifenc", "--min", "24", "--max", "26", "-s", "6", "-j", "2", "--grid", "8x6", png, path],
                       check=True, stdout=subprocess.DEVNULL)
    return path


def command(tool, cropkit, src, out, rect):
    x, y, w, h = rect
    if tool == "cropkit":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "-f", "-q"]
    if tool == "cropkit-libheif":
        # The same build with its AV1 images decoded by libheif instead of
        # libavif: the measurement that chose libavif.
        return ["env", "CROPKIT_AV1_DECODER=libheif"] + command("cropkit", cropkit, src, out, rect)
    if tool == "vips":
        return ["vips", "crop", src, out + (f"[Q={QUALITY},compression=av1]" if out.endswith(".avif") else ""),
                str(x), str(y), str(w), str(h)]
    if tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x), str(y), str(w), str(h), str(QUALITY)]
    raise ValueError(tool)


def main():
    args = photo_arguments(5, only=True)
    photo = os.path.join(args.testdata, PHOTO)
    print("| case | tool | median s | peak MB | bytes | ratio |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for name, which, rect, kind in cases():
        if args.only and not name.startswith(args.only):
            continue
        src = make_grid(photo, args.workdir) if which == GRID else photo
        tools = ["cropkit", "cropkit-libheif", "vips", "Pillow"]
        outs = {tool: os.path.join(args.workdir, f"avif-{name}-{i}.{kind}") for i, tool in enumerate(tools)}
        report = json.loads(subprocess.run(
            [args.cropkit, "crop", src, "-o", outs["cropkit"], "--pixels", ",".join(map(str, rect)), "-f", "--json"],
            capture_output=True, text=True, check=True).stdout)
        label = f"{name} {rect[2]}x{rect[3]} -> .{kind}"
        run_case(label, tools, lambda tool: command(tool, args.cropkit, src, outs[tool], rect), outs, args.runs)
        avif = report["written"].get("avif")
        if avif:
            how = (f"encoded from pixels at quality {avif['quality']}" if avif["quality"]
                   else f"{avif['copiedTiles']} tiles copied, {avif['reencodedTiles']} encoded again")
            print(f"| {label} | (cropkit) | | | | {how} |")


if __name__ == "__main__":
    main()
