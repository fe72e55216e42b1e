#!/usr/bin/env python3
"""Compares the AV1 encoders present here on the crops cropkit encodes as
AVIF from pixels: the centre 2000x1500 and a 300x300 avatar of the real
12 MP photo, as PNG. cropkit (aom through libheif, speed 9, one thread,
quality 80) against avifenc (Debian's libavif 0.11) with each of its
encoders on one thread, 4:2:0 as cropkit writes it, at aom's quantizer for quality 80 (13): aom, rav1e
and SVT-AV1 at their fastest speeds. Prints a Markdown table: median wall
time, peak RSS, bytes, and PSNR of the output (decoded by Pillow) against
the PNG.

    av1_encoders.py CROPKIT TESTDATA WORKDIR [--runs N]
"""
import math
import os
import statistics
import subprocess

from bench_common import peak_kb, timed, photo_arguments

PHOTO = "avif/generated/photo_pug_4032x3024_q60.avif"
CROPS = {"centre": (1017, 763, 2000, 1500), "300x300": (1867, 1363, 300, 300)}
ENCODERS = [
    ("cropkit (aom 9 via libheif)", None),
    ("avifenc aom -s 9", ["-c", "aom", "-s", "9"]),
    ("avifenc rav1e -s 10", ["-c", "rav1e", "-s", "10"]),
    ("avifenc svt -s 10", ["-c", "svt", "-s", "10"]),
]


def psnr(reference, path):
    from PIL import Image, ImageChops, ImageStat
    a = Image.open(reference).convert("RGB")
    b = Image.open(path).convert("RGB")
    mse = statistics.mean(v * v for v in ImageStat.Stat(ImageChops.difference(a, b)).rms)
    return float("inf") if mse == 0 else 20 * math.log10(255 / math.sqrt(mse))


def main():
    args = photo_arguments(3)
    print("| crop | encoder | median s | peak MB | bytes | PSNR dB |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name, (x, y, w, h) in CROPS.items():
        png = os.path.join(args.workdir, f"av1-{name}.png")
        subprocess.run([args.cropkit, "crop", os.path.join(args.testdata, PHOTO), "-o", png, "--pixels",
                        f"{x},{y},{w},{h}", "-f", "-q"], check=True)
        for label, options in ENCODERS:
            out = os.path.join(args.workdir, f"av1-{name}-{label.split()[0]}-{ENCODERS.index((label, options))}.avif")
            if options is None:
                command = [args.cropkit, "crop", png, "-o", out, "--pixels", f"0,0,{w},{h}", "-f", "-q"]
            else:
                command = ["avifenc", "-j", "1", "-y", "420", "--min", "13", "--max", "13"] + options + [png, out]
            times = []
            failure = None
            for _ in range(args.runs):
                elapsed, failure = timed(command)
                if failure:
                    break
                times.append(elapsed)
            if failure:
                print(f"| {name} | {label} | fails | | | {failure} |")
                continue
            print(f"| {name} {w}x{h} | {label} | {statistics.median(times):.3f} | {peak_kb(command) / 1024:.1f} | "
                  f"{os.path.getsize(out)} | {psnr(png, out):.1f} |")


if __name__ == "__main__":
    main()
