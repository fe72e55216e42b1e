#!/usr/bin/env python3
"""Compares CropKit's turned and resized crops with an independent
resampler, Pillow, on real photos.

For each case CropKit writes a PNG (`cropkit crop --pixels ... --angle ...`)
and Pillow computes the same output from the same photo:

- turned crops (bilinear): `Image.transform(size, AFFINE, data, BILINEAR)`
  with the inverse matrix of "Straighten and resize" in DESIGN.md, written
  out here again from the contract (not read from CropKit): output pixel
  (i, j) at p = (O.x + (i + 1/2) O.w / W, O.y + (j + 1/2) O.h / H), sampling
  q = R(-angle)(p - c) + c. Pillow's affine data maps output coordinates to
  input coordinates with pixel centres at k + 1/2, the same convention.
  Compared where q lies at least 2 px inside the photo (at the edge Pillow
  and CropKit treat the outside differently: CropKit repeats the edge, then
  fills where q leaves the image).
- pure reductions (Lanczos-3): `Image.resize(size, LANCZOS, box=O)`, whose
  support widens by the reduction as CropKit's does. Compared everywhere
  but a 3 px border.

Reports, per case, the mean absolute difference and the largest, per
sample. The tolerance (--tolerance, default 2 levels of 255) covers the
two implementations' rounding: Pillow weighs bilinear in 8-bit fixed point
and Lanczos in 22-bit fixed-point coefficients with intermediate rounding
between its two passes; CropKit weighs in Float32 and rounds once.

    scripts/resample-crosscheck.py CROPKIT PHOTO.png... [--cases N] [--tolerance T]

Run it with the project's virtual environment (scripts/python-venv).
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

from PIL import Image


def affine(angle, rect, size, image):
    """Pillow AFFINE data (a, b, c, d, e, f): input = (a x + b y + c, d x + e y + f)."""
    ox, oy, ow, oh = rect
    w, h = size
    cx, cy = image[0] / 2, image[1] / 2
    radians = math.radians(angle)
    cos, sin = math.cos(radians), math.sin(radians)
    sx, sy = ow / w, oh / h
    # p = (ox + x sx, oy + y sy) with x = i + 1/2; q = c + R(-angle)(p - c).
    dx, dy = ox - cx, oy - cy
    return (cos * sx, sin * sy, cx + cos * dx + sin * dy,
            -sin * sx, cos * sy, cy - sin * dx + cos * dy)


def compare(ours, theirs, keep):
    """Mean and largest absolute difference over the pixels keep(i, j) allows."""
    a, b = ours.load(), theirs.load()
    total, count, largest = 0, 0, 0
    for j in range(ours.height):
        for i in range(ours.width):
            if not keep(i, j):
                continue
            for s, t in zip(a[i, j][:3], b[i, j][:3]):
                d = abs(s - t)
                total += d
                largest = max(largest, d)
                count += 1
    return (total / count if count else 0.0), largest, count // 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cropkit")
    parser.add_argument("photos", nargs="+")
    parser.add_argument("--cases", type=int, default=6)
    parser.add_argument("--tolerance", type=float, default=2)
    parser.add_argument("--seed", type=int, default=17)
    arguments = parser.parse_args()
    generator = random.Random(arguments.seed)
    failures = 0
    print("photo\tcase\toutput\tcompared\tmean\tmax\tverdict")
    with tempfile.TemporaryDirectory() as folder:
        for photo in arguments.photos:
            image = Image.open(photo).convert("RGB")
            width, height = image.size
            for number in range(arguments.cases):
                turned = number % 2 == 0
                ow = generator.randint(width // 4, width // 2)
                oh = generator.randint(height // 4, height // 2)
                ox = generator.randint(0, width - ow)
                oy = generator.randint(0, height - oh)
                if turned:
                    angle = generator.choice([3.5, -3.5, 10, -27.25, 45])
                    size = (generator.randint(ow // 3, ow), generator.randint(oh // 3, oh)) if number % 4 == 0 else (ow, oh)
                    flags = ["--angle", str(angle), "--filter", "bilinear", "--fill", "#000000"]
                else:
                    angle = 0
                    size = (max(1, ow // generator.choice([2, 3, 5])), max(1, oh // generator.choice([2, 3, 5])))
                    flags = ["--filter", "lanczos3"]
                output = os.path.join(folder, f"case-{number}.png")
                command = [arguments.cropkit, "crop", photo, "-o", output, "--force",
                           "--pixels", f"{ox},{oy},{ow},{oh}", "--size", f"{size[0]}x{size[1]}"] + flags
                subprocess.run(command, check=True, capture_output=True)
                ours = Image.open(output).convert("RGB")
                if turned:
                    data = affine(angle, (ox, oy, ow, oh), size, (width, height))
                    theirs = image.transform(size, Image.Transform.AFFINE, data, Image.Resampling.BILINEAR)

                    def keep(i, j, data=data):
                        x, y = i + 0.5, j + 0.5
                        qx = data[0] * x + data[1] * y + data[2]
                        qy = data[3] * x + data[4] * y + data[5]
                        return 2 <= qx <= width - 2 and 2 <= qy <= height - 2
                    name = f"turned {angle} deg, bilinear"
                else:
                    theirs = image.resize(size, Image.Resampling.LANCZOS, box=(ox, oy, ox + ow, oy + oh))

                    def keep(i, j, size=size):
                        return 3 <= i < size[0] - 3 and 3 <= j < size[1] - 3
                    name = "reduced, lanczos3"
                mean, largest, count = compare(ours, theirs, keep)
                ok = largest <= arguments.tolerance
                failures += 0 if ok else 1
                print(f"{os.path.basename(photo)}\t{name} {ox},{oy},{ow},{oh}\t{size[0]}x{size[1]}\t{count}\t{mean:.3f}\t{largest}\t{'ok' if ok else 'FAILED'}")
    print(f"{failures} case(s) beyond {arguments.tolerance} levels", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
