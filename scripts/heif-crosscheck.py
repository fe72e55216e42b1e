#!/usr/bin/env python3
"""Crops HEIC files to HEIC with `cropkit` and checks each crop with two
decoders that are not CropKit's: the system libheif (Debian 12's 1.15.1,
through ctypes; it decodes the whole file, applying clap, irot and imir
itself) and pillow-heif (its bundled libheif 1.23). For each file: its four
corners and centre (300x300, or the image if smaller) and a centre rect of
two fifths, each in the default mode (edge tiles encoded again) and with
--snap-to-blocks (every tile copied). A crop passes when both decoders open
it at the size cropkit reports, pillow-heif's pixels equal the source's at
the rect (exactly when every tile was copied; within --tolerance when edge
tiles were encoded again) and `cropkit leaks` finds nothing. libheif 1.15
opens the crops of the iPhone 16 photo too, which it cannot open whole (its
auxiliary images are not carried); where it refuses the source itself (it
cannot mirror a 10-bit image), the same refusal of the crop is not counted.
HEIC output of an image with alpha is refused, and skipped here.

    scripts/heif-crosscheck.py CROPKIT FILE.heic... [--tolerance N]

Run it with the project's virtual environment (scripts/python-venv).
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageChops
import pillow_heif

pillow_heif.register_heif_opener()


class HeifError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("subcode", ctypes.c_int), ("message", ctypes.c_char_p)]


def system_libheif_size(path):
    """The size libheif 1.15 decodes the whole file to, or its error."""
    lib = ctypes.CDLL("libheif.so.1")
    for name in ["heif_context_read_from_file", "heif_context_get_primary_image_handle", "heif_decode_image"]:
        getattr(lib, name).restype = HeifError
    lib.heif_context_alloc.restype = ctypes.c_void_p
    context = ctypes.c_void_p(lib.heif_context_alloc())
    try:
        error = lib.heif_context_read_from_file(context, path.encode(), None)
        if error.code:
            return error.message.decode()
        handle = ctypes.c_void_p()
        error = lib.heif_context_get_primary_image_handle(context, ctypes.byref(handle))
        if error.code:
            return error.message.decode()
        image = ctypes.c_void_p()
        error = lib.heif_decode_image(handle, ctypes.byref(image), 1, 10, None)
        if error.code:
            return error.message.decode()
        size = (lib.heif_image_get_width(image, 10), lib.heif_image_get_height(image, 10))
        lib.heif_image_release(image)
        lib.heif_image_handle_release(handle)
        return size
    finally:
        lib.heif_context_free(context)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tolerance", type=int, default=48)
    args = parser.parse_args()
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "crop.heic")
        for path in args.files:
            info = json.loads(subprocess.run([args.cropkit, "info", "--json", path], capture_output=True,
                                             text=True, check=True).stdout)
            width, height = info["oriented"]["width"], info["oriented"]["height"]
            # What libheif 1.15 says of the source: an error it also gives
            # for the crop (10-bit with a mirror) is its limit, not the crop's.
            source_system = system_libheif_size(path)
            source = Image.open(path)
            source.load()
            source = source.convert("RGB")
            side_w, side_h = min(300, width), min(300, height)
            rects = [(0, 0, side_w, side_h), (width - side_w, 0, side_w, side_h),
                     (0, height - side_h, side_w, side_h), (width - side_w, height - side_h, side_w, side_h),
                     ((width - side_w) // 2, (height - side_h) // 2, side_w, side_h),
                     (width // 2 - width // 5, height // 2 - height // 5, max(1, 2 * (width // 5)), max(1, 2 * (height // 5)))]
            for rect in rects:
                for mode in ([], ["--snap-to-blocks"]):
                    checked += 1
                    run = subprocess.run([args.cropkit, "crop", path, "-o", out, "--pixels", ",".join(map(str, rect)),
                                          "-f", "--json"] + mode, capture_output=True, text=True)
                    label = f"{os.path.basename(path)} {rect} {'snapped' if mode else 'default'}"
                    if run.returncode:
                        if "with alpha" in run.stderr:
                            continue
                        failures += 1
                        print(f"FAIL {label}: {run.stderr.strip()}")
                        continue
                    report = json.loads(run.stdout)
                    pixels = report["mapping"]["pixels"]
                    x, y, w, h = pixels["x"], pixels["y"], pixels["width"], pixels["height"]
                    heic = report["written"]["heic"]
                    problems = []
                    system = system_libheif_size(out)
                    if isinstance(system, str) and system != source_system:
                        problems.append(f"libheif 1.15: {system}")
                    elif not isinstance(system, str) and system != (w, h):
                        problems.append(f"libheif 1.15 decodes {system}, not {(w, h)}")
                    crop = Image.open(out)
                    crop.load()
                    crop = crop.convert("RGB")
                    if crop.size != (w, h):
                        problems.append(f"pillow-heif decodes {crop.size}, not {(w, h)}")
                    else:
                        difference = ImageChops.difference(crop, source.crop((x, y, x + w, y + h)))
                        largest = max(high for _, high in difference.getextrema())
                        limit = 0 if heic["reencodedTiles"] == 0 else args.tolerance
                        if largest > limit:
                            problems.append(f"pixels differ by up to {largest} (allowed {limit})")
                    leaks = subprocess.run([args.cropkit, "leaks", out], capture_output=True, text=True)
                    if leaks.returncode:
                        problems.append(leaks.stdout.strip().replace("\n", "; "))
                    if problems:
                        failures += 1
                        print(f"FAIL {label}: {'; '.join(problems)}")
    print(f"heif cross-check: {checked} crops, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
