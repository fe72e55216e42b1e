#!/usr/bin/env python3
"""Times `cropkit crop` on real iPhone HEICs against libvips, Pillow with
pillow-heif and heif-convert, in one run, and prints a Markdown table:
median wall time, peak RSS (GNU time), output bytes, and the ratios the
HEIF issue sets goals for.

    heif_bench.py CROPKIT TESTDATA WORKDIR [--runs N]

The anchors decode the whole photo; cropkit decodes the tiles the crop
touches. HEIC outputs: cropkit copies the tiles inside the rect and encodes
again the edge tiles its edge cuts (the default; "snapped" rows: the rect
grown to the tile grid with --snap-to-blocks, nothing encoded); vips and
Pillow decode and encode the whole crop again (x265 through libheif, at
quality 90). heif-convert converts the whole photo (it has no crop): the
cost of a decode and PNG encode. Tools run in turn within
each round.
"""
import os
import statistics
import subprocess
import sys

from bench_common import peak_kb, timed, photo_arguments

# name: (file under testdata/heif, (x, y, w, h) as seen)
PHOTOS = {
    # iPhone 13 Pro, 512x512 tiles; a 300x300 rect inside one tile
    "12mp": ("pillow-heif/pug.heic", 4032, 3024, (2060, 1540)),
    # iPhone 16, 640x896 tiles, irot 270 (as seen, its top-left tile is 640 wide, 700 high)
    "24mp": ("libvips/apple-heic-gainmap.heic", 4284, 5712, (100, 100)),
}

PILLOW = """
import sys
from PIL import Image
import pillow_heif
pillow_heif.register_heif_opener()
x, y, w, h = map(int, sys.argv[3:7])
image = Image.open(sys.argv[1]).crop((x, y, x + w, y + h))
image.save(sys.argv[2], **({"quality": 90} if sys.argv[2].endswith(".heic") else {}))
"""


def cases():
    for photo, (path, width, height, inside) in PHOTOS.items():
        small = (width // 2 - 150, height // 2 - 150, 300, 300)
        centre = (width // 2 - 1000, height // 2 - 750, 2000, 1500)
        # HEIC out: the default first (a rect off the tile grid, edge tiles
        # encoded again), then the best case (grown to the grid).
        yield f"{photo}-heic-centre-off-grid", path, centre, "heic"
        yield f"{photo}-heic-300x300-off-grid", path, small, "heic"
        yield f"{photo}-heic-centre-snapped", path, centre, "heic"
        yield f"{photo}-300x300-1-tile", path, (*inside, 300, 300), "png"
        yield f"{photo}-300x300-4-tiles", path, small, "png"
        yield f"{photo}-centre", path, centre, "png"


def command(tool, cropkit, src, out, rect, snapped=False):
    x, y, w, h = rect
    if tool == "cropkit":
        extra = ["--snap-to-blocks"] if snapped else []
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "-f", "-q"] + extra
    if tool == "vips":
        return ["vips", "crop", src, out + ("[Q=90]" if out.endswith(".heic") else ""), str(x), str(y), str(w), str(h)]
    if tool == "Pillow":
        return [sys.executable, "-c", PILLOW, src, out, str(x), str(y), str(w), str(h)]
    if tool == "heif-convert (whole)":
        return ["heif-convert", src, out]
    raise ValueError(tool)


def main():
    args = photo_arguments(5)
    print("| case | tool | median s | peak MB | bytes | ratio |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for name, path, rect, kind in cases():
        src = os.path.join(args.testdata, "heif", path)
        tools = ["cropkit", "vips", "Pillow"] + (["heif-convert (whole)"] if kind == "png" and "1-tile" in name else [])
        outs = {tool: os.path.join(args.workdir, f"heif-{name}-{i}.{kind}") for i, tool in enumerate(tools)}
        times = {tool: [] for tool in tools}
        failures = {}
        for _ in range(args.runs):
            for tool in tools:
                if tool in failures:
                    continue
                elapsed, failure = timed(command(tool, args.cropkit, src, outs[tool], rect, "snapped" in name))
                if failure:
                    failures[tool] = failure
                else:
                    times[tool].append(elapsed)
        base = statistics.median(times["cropkit"])
        for tool in tools:
            if tool in failures:
                print(f"| {name} {rect[2]}x{rect[3]} | {tool} | fails | | | {failures[tool]} |")
                continue
            median = statistics.median(times[tool])
            kb = peak_kb(command(tool, args.cropkit, src, outs[tool], rect, "snapped" in name))
            size = os.path.getsize(outs[tool])
            ratio = "" if tool == "cropkit" else f"{median / base:.1f}x cropkit's time"
            print(f"| {name} {rect[2]}x{rect[3]} | {tool} | {median:.3f} | {kb / 1024:.1f} | {size} | {ratio} |")
        info = subprocess.run([args.cropkit, "crop", src, "-o", outs["cropkit"], "--pixels", ",".join(map(str, rect)), "-f", "--json"]
                              + (["--snap-to-blocks"] if "snapped" in name else []), capture_output=True, text=True).stdout
        import json
        report = json.loads(info)
        written = report["mapping"]["pixels"]
        _, width, height, _ = PHOTOS[name.split("-")[0]]
        share = os.path.getsize(src) * written["width"] * written["height"] / (width * height)
        note = f"written {written['width']}x{written['height']}; the source's share of bytes by area {share:.0f}"
        if kind == "heic":
            heic = report["written"]["heic"]
            boxes = report["written"]["bytes"] - heic["copiedBytes"]
            note += f"; {heic['copiedTiles']} tiles copied: their {heic['copiedBytes']} coded bytes + {boxes} of boxes and metadata"
        print(f"| {name} | (cropkit) | | | | {note} |")


if __name__ == "__main__":
    main()
