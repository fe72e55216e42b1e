#!/usr/bin/env python3
"""Makes the crop benchmark's inputs from real phone photos: the Apple HEICs
in the shared test data, decoded once (pillow-heif, which applies the
HEIF rotation) and saved as a phone's "most compatible" export would be:
JPEG quality 92 with 4:2:0 chroma, and PNG (RGB; RGBA with an opaque alpha
channel). Files already made are kept.

    make_inputs.py TESTDATA WORKDIR

Runs in the benchmark's virtual environment (Benchmarks/venv), never the
system Python's packages.
"""
import os
import sys

import pillow_heif
from PIL import Image

# name: (HEIC under TESTDATA/heif, what it is)
PHOTOS = {
    "iphone13pro": ("pillow-heif/pug.heic", "iPhone 13 Pro, 4032x3024"),
    "iphone7plus": ("libvips/Example1.heic", "iPhone 7 Plus, 4032x3024"),
    "iphone8plus": ("pillow-heif/arrow.heic", "iPhone 8 Plus, portrait 3024x4032"),
    "iphone16": ("libvips/apple-heic-gainmap.heic", "iPhone 16, portrait 4284x5712 (24 MP)"),
}


def main():
    testdata, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    pillow_heif.register_heif_opener()
    for name, (heic, _) in PHOTOS.items():
        targets = {
            "jpg": os.path.join(workdir, f"{name}.jpg"),
            "png": os.path.join(workdir, f"{name}_rgb.png"),
            "rgba": os.path.join(workdir, f"{name}_rgba.png"),
        }
        if all(os.path.exists(path) for path in targets.values()):
            continue
        photo = Image.open(os.path.join(testdata, "heif", heic)).convert("RGB")
        photo.save(targets["jpg"], quality=92, subsampling=2)
        photo.save(targets["png"])
        photo.convert("RGBA").save(targets["rgba"])
        print(f"{name}: {photo.size[0]}x{photo.size[1]} from {heic}", file=sys.stderr)
    # The iPhone 13 Pro's JPEG with the photo's EXIF and XMP, as a phone's
    # export keeps them: its SubjectArea and SubjectLocation and two MWG
    # regions (the coordinates-in-metadata cost).
    meta = os.path.join(workdir, "iphone13pro_meta.jpg")
    if not os.path.exists(meta):
        # The same photo with regions added (regions/SOURCES.md).
        source = Image.open(os.path.join(testdata, "regions", "pug_iphone13pro.heic"))
        exif, xmp = source.info.get("exif"), source.info.get("xmp")
        options = {"quality": 92, "subsampling": 2}
        if exif:
            options["exif"] = exif
        if xmp:
            options["xmp"] = xmp
        source.convert("RGB").save(meta, **options)
        print(f"iphone13pro_meta: with EXIF {len(exif or b'')} and XMP {len(xmp or b'')} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
