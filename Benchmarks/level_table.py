#!/usr/bin/env python3
"""The measurement behind the default DEFLATE level: for the centre
2000x1500 crop of each real photo (made by make_inputs.py), as JPEG and as
PNG input, `cropkit crop --level L` for each level, its median time and
its bytes against Pillow's for the same crop (Image.crop + save, zlib level
6). Prints one Markdown table.

    level_table.py CROPKIT WORKDIR [--runs N] [--levels 1,2,...,auto]
"""
import argparse
import os
import statistics
import subprocess
import time

from PIL import Image

PHOTOS = ["iphone13pro", "iphone7plus", "iphone8plus", "iphone16"]


def centre(path, w=2000, h=1500):
    width, height = Image.open(path).size
    return ((width - w) // 2, (height - h) // 2, w, h)


def run(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--levels", default="1,2,3,4,5,6,auto")
    args = parser.parse_args()
    levels = args.levels.split(",")
    print("| input | " + " | ".join(f"level {l}" for l in levels) + " |")
    print("| --- |" + " --- |" * len(levels))
    for photo in PHOTOS:
        for kind, name in [("JPEG", f"{photo}.jpg"), ("PNG", f"{photo}_rgb.png")]:
            src = os.path.join(args.workdir, name)
            x, y, w, h = centre(src)
            pillow_out = os.path.join(args.workdir, f"level-pillow-{name}.png")
            Image.open(src).crop((x, y, x + w, y + h)).save(pillow_out)
            pillow_bytes = os.path.getsize(pillow_out)
            cells = []
            for level in levels:
                out = os.path.join(args.workdir, f"level-{level}-{name}.png")
                command = [args.cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}",
                           "--force", "--level", level]
                seconds = statistics.median(run(command) for _ in range(args.runs))
                cells.append(f"{seconds * 1000:.0f} ms, {os.path.getsize(out) / pillow_bytes:.3f}")
            print(f"| {photo} {kind} | " + " | ".join(cells) + " |")
    print()
    print("Each cell: median time of the whole command, and output bytes / Pillow's bytes.")


if __name__ == "__main__":
    main()
