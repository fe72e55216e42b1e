#!/usr/bin/env python3
"""Times `cropkit crop` on animations against gifsicle (GIF into GIF) and
Pillow (APNG and animated WebP: decode every frame, crop, save_all), in one
run, and prints Markdown tables: median wall time, peak RSS (GNU time),
output bytes, ratios; then the peak memory of 10 frames against 1000.

    animation_bench.py CROPKIT TESTDATA WORKDIR [--runs N] [--only CASE]

Inputs (make_animations.py, run first): a real photo of the shared test
data panned and zoomed into 300 frames of 480x270 (GIF, APNG, lossless and
lossy WebP), and the corpus's largest real GIF (wuffs'
gifplayer-muybridge.gif, 380 frames of 472x298) and its real APNG and
WebP (Pillow's iss634, 41-42 frames of 245x245). The default case comes
first: a centre crop off any grid (odd offsets), as a dragged selection
gives; then the best case, the top band (GIF: the rows below it are never
decoded). Tools run in turn within each round.
"""
import os
import subprocess
import sys

from bench_common import photo_arguments, peak_kb, run_case

PILLOW = """
import sys
from PIL import Image, ImageSequence
src, out = sys.argv[1], sys.argv[2]
x, y, w, h = map(int, sys.argv[3:7])
im = Image.open(src)
frames, durations = [], []
for frame in ImageSequence.Iterator(im):
    frames.append(frame.convert("RGBA").crop((x, y, x + w, y + h)))
    durations.append(frame.info.get("duration", 0))
options = {"lossless": True} if out.endswith(".webp") and sys.argv[7] == "lossless" else {}
frames[0].save(out, save_all=True, append_images=frames[1:], duration=durations,
               loop=im.info.get("loop", 0), **options)
"""


def centre(width, height):
    return (width // 4 + 1, height // 4 + 1, width // 2, height // 2 - 1)


def top(width, height):
    return (1, 0, width // 2, height // 6)


def cases(testdata, workdir):
    muybridge = os.path.join(testdata, "animated/wuffs/gifplayer-muybridge.gif")
    iss634 = os.path.join(testdata, "animated/pillow/iss634")
    pan = os.path.join(workdir, "pan300")
    for name, path, size in (("pan300 480x270", pan + ".gif", (480, 270)),
                             ("muybridge 472x298", muybridge, (472, 298))):
        yield f"GIF {name} centre", path, centre(*size), "gif", "gifsicle", "lossless"
        yield f"GIF {name} top band", path, top(*size), "gif", "gifsicle", "lossless"
    for name, path, kind, coding in (
            ("APNG pan300 480x270", pan + ".png", "png", "lossless"),
            ("APNG iss634 245x245", iss634 + ".apng", "png", "lossless"),
            ("WebP lossless pan300 480x270", pan + "_lossless.webp", "webp", "lossless"),
            ("WebP lossy pan300 480x270", pan + "_lossy.webp", "webp", "lossy"),
            ("WebP lossless iss634 245x245", iss634 + ".webp", "webp", "lossless")):
        size = (245, 245) if "iss634" in name else (480, 270)
        yield f"{name} centre", path, centre(*size), kind, "Pillow", coding


def command(tool, cropkit, src, out, rect, coding):
    x, y, w, h = rect
    if tool == "cropkit":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "-f", "-q"]
    if tool == "gifsicle":
        return ["gifsicle", "--crop", f"{x},{y}+{w}x{h}", src, "-o", out]
    if tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x), str(y), str(w), str(h), coding]
    raise ValueError(tool)


def main():
    args = photo_arguments(5, only=True)
    print("| case | tool | median s | peak MB | bytes | ratio |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for name, src, rect, kind, anchor, coding in cases(args.testdata, args.workdir):
        if args.only and not name.startswith(args.only):
            continue
        tools = ["cropkit", anchor]
        outs = {tool: os.path.join(args.workdir, f"anim-{i}.{kind}") for i, tool in enumerate(tools)}
        label = f"{name} {rect[2]}x{rect[3]} at {rect[0]},{rect[1]}"
        run_case(label, tools, lambda tool: command(tool, args.cropkit, src, outs[tool], rect, coding),
                 outs, args.runs)
    # Peak memory: 1000 frames against 10 of the same pan, the median peak
    # of `runs` runs each.
    print()
    print("| input | output | peak MB, 10 frames | peak MB, 1000 frames | 1000 / 10 |")
    print("| --- | --- | ---: | ---: | ---: |")
    rect = centre(480, 270)
    for source in ("gif", "png"):
        for kind in ("gif", "png", "webp"):
            if source == "png" and kind == "gif":
                continue
            peaks = []
            for count in (10, 1000):
                src = os.path.join(args.workdir, f"pan{count}.{source}")
                out = os.path.join(args.workdir, f"memory.{kind}")
                # The median of `runs` peaks: a single peak varies by a
                # few MB from run to run (threads, allocator arenas).
                samples = sorted(peak_kb(command("cropkit", args.cropkit, src, out, rect, "lossless"))
                                 for _ in range(args.runs))
                peaks.append(samples[len(samples) // 2] / 1024)
            print(f"| pan {source.upper() if source == 'gif' else 'APNG'} | {kind} | {peaks[0]:.1f} | "
                  f"{peaks[1]:.1f} | {peaks[1] / peaks[0]:.2f} |")


if __name__ == "__main__":
    main()
