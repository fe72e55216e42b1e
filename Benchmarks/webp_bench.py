#!/usr/bin/env python3
"""Times `cropkit crop` on a real 12 MP phone photo saved as WebP against
libvips and Pillow doing the same crop, in one run, and prints a Markdown
table: median wall time, peak RSS (GNU time), output bytes, ratios.

    webp_bench.py CROPKIT TESTDATA WORKDIR [--runs N] [--only CASE]

The photo is the shared test data's `webp/generated/photo_pug_4032x3024_q80.webp`
(pug.heic, iPhone 13 Pro, decoded and saved by Pillow at quality 80, with
its EXIF and Display P3 profile). WebP outputs: cropkit writes lossy VP8
at the quality its quantizers say the source was coded at (it reports
it); vips and Pillow are given that same quality, at their own default
effort. The default case comes first (a centre crop, as a dragged
selection gives), then a 300x300 avatar, then the best case (a strip at
the top, where the decode stops after the crop's last row). Tools run in
turn within each round.
"""
import json
import os
import subprocess
import sys

from bench_common import run_case, photo_arguments

PHOTO = "webp/generated/photo_pug_4032x3024_q80.webp"
LOSSLESS = "lossless"  # made from PHOTO in WORKDIR by make_lossless()
WIDTH, HEIGHT = 4032, 3024

PILLOW = """
import sys
from PIL import Image
x, y, w, h, q = map(int, sys.argv[3:8])
image = Image.open(sys.argv[1]).crop((x, y, x + w, y + h))
options = {"quality": q} if q else {"lossless": True}
image.save(sys.argv[2], **(options if sys.argv[2].endswith(".webp") else {}))
"""


def cases():
    centre = (WIDTH // 2 - 1000 + 1, HEIGHT // 2 - 750 + 1, 2000, 1500)
    avatar = (WIDTH // 2 - 150 + 1, HEIGHT // 2 - 150 + 1, 300, 300)
    top = (1001, 0, 2000, 300)
    yield "12mp-webp-centre", PHOTO, centre, "webp"
    yield "12mp-webp-centre", PHOTO, centre, "png"
    yield "12mp-webp-300x300", PHOTO, avatar, "webp"
    yield "12mp-webp-300x300", PHOTO, avatar, "png"
    yield "12mp-webp-top-strip", PHOTO, top, "webp"
    # Lossless: the same photo saved as lossless WebP (made in WORKDIR),
    # cropped to lossless WebP (vips and Pillow asked for lossless too).
    yield "12mp-webp-lossless-centre", LOSSLESS, centre, "webp"


def make_lossless(src, workdir):
    """The photo saved as lossless WebP by Pillow (its default effort)."""
    from PIL import Image
    path = os.path.join(workdir, "photo_pug_lossless.webp")
    if not os.path.exists(path):
        Image.open(src).save(path, lossless=True, exif=Image.open(src).info.get("exif", b""))
    return path


def command(tool, cropkit, src, out, rect, quality, lossless=False):
    x, y, w, h = rect
    if lossless and tool == "vips":
        return ["vips", "crop", src, out + "[lossless]", str(x), str(y), str(w), str(h)]
    if lossless and tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x), str(y), str(w), str(h), "0"]
    if tool == "cropkit":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "-f", "-q"]
    if tool == "vips":
        return ["vips", "crop", src, out + (f"[Q={quality}]" if out.endswith(".webp") else ""), str(x), str(y), str(w), str(h)]
    if tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x), str(y), str(w), str(h), str(quality)]
    raise ValueError(tool)


def main():
    args = photo_arguments(5, only=True)
    photo = os.path.join(args.testdata, PHOTO)
    print("| case | tool | median s | peak MB | bytes | ratio |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for name, which, rect, kind in cases():
        if args.only and not name.startswith(args.only):
            continue
        lossless = which == LOSSLESS
        src = make_lossless(photo, args.workdir) if lossless else photo
        tools = ["cropkit", "vips", "Pillow"]
        outs = {tool: os.path.join(args.workdir, f"webp-{name}-{i}.{kind}") for i, tool in enumerate(tools)}
        report = json.loads(subprocess.run(
            [args.cropkit, "crop", src, "-o", outs["cropkit"], "--pixels", ",".join(map(str, rect)), "-f", "--json"],
            capture_output=True, text=True, check=True).stdout)
        webp = report["written"].get("webp")
        quality = webp["quality"] if webp and webp["quality"] else 0
        label = f"{name} {rect[2]}x{rect[3]} -> .{kind}"
        run_case(label, tools, lambda tool: command(tool, args.cropkit, src, outs[tool], rect, quality, lossless),
                 outs, args.runs)
        if webp:
            at = f"at quality {webp['quality']}" if webp["quality"] else f"at effort {os.environ.get('CROPKIT_WEBP_LOSSLESS_LEVEL', 'default')}"
            print(f"| {label} | (cropkit) | | | | {webp['coding']} {at}: {webp['reason']} |")


if __name__ == "__main__":
    main()
