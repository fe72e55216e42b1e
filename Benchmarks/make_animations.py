#!/usr/bin/env python3
"""Makes the animation benchmark's inputs from a real phone photo: the
iPhone 13 Pro HEIC of the shared test data (pug.heic), decoded once by
pillow-heif, seen through a 16:9 window that pans across it and zooms in,
each view resized to 480x270 (Lanczos), as a screen recording or a
"Ken Burns" sticker is made. Saved by Pillow as its users' animations are:

- pan300.gif: 300 frames of 40 ms, looping; Pillow quantizes each frame
  to its own palette (a local colour table a frame) and stores the rect
  that changed, as GIF makers do;
- pan300.png: the same 300 frames as an APNG (RGB, Pillow's save_all);
- pan300_lossless.webp, pan300_lossy.webp: as animated WebP, lossless and
  lossy (quality 80, Pillow's default, as chat apps send them);
- pan10.gif, pan1000.gif, pan10.png, pan1000.png: 10 and 1000 frames of
  the same pan as GIF and APNG, for the peak-memory comparison (1000
  frames must need no more memory than 10).

Files already made are kept.

    make_animations.py TESTDATA WORKDIR

Runs in the project's virtual environment (scripts/python-venv).
"""
import os
import sys

import pillow_heif
from PIL import Image

SIZE = (480, 270)


def frames(photo, count):
    """`count` views of `photo`: a 16:9 window zooming from the whole
    width to 60 % of it while panning left to right and down."""
    width, height = photo.size
    for i in range(count):
        t = i / max(1, count - 1)
        w = width * (1.0 - 0.4 * t)
        h = w * 9 / 16
        x = (width - w) * t
        y = (height - h) * (0.2 + 0.6 * t)
        box = (round(x), round(y), round(x + w), round(y + h))
        yield photo.resize(SIZE, Image.LANCZOS, box=box)


def main():
    testdata, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    pillow_heif.register_heif_opener()
    photo = None

    def views(count):
        nonlocal photo
        if photo is None:
            photo = Image.open(os.path.join(testdata, "heif/pillow-heif/pug.heic")).convert("RGB")
        return list(frames(photo, count))

    def save(name, count, **options):
        path = os.path.join(workdir, name)
        if os.path.exists(path):
            return
        made = views(count)
        made[0].save(path, save_all=True, append_images=made[1:], duration=40, loop=0, **options)
        print(f"{name}: {count} frames of {SIZE[0]}x{SIZE[1]}, {os.path.getsize(path)} bytes",
              file=sys.stderr)

    save("pan300.gif", 300)
    save("pan300.png", 300)
    save("pan300_lossless.webp", 300, lossless=True)
    save("pan300_lossy.webp", 300, quality=80)
    save("pan10.gif", 10)
    save("pan1000.gif", 1000)
    save("pan10.png", 10)
    save("pan1000.png", 1000)


main()
