#!/usr/bin/env python3
"""Draws the DocC figure of a cropped animation: six displayed canvases of a
real GIF (Pillow's iss634.gif, a spinning figure) with the crop's rect outlined, and
below them the same six canvases of the crop CropKit wrote, each composited
by the reference compositor of scripts/animation-check.py (written from the
GIF specification, Pillow decoding each frame's pixels), not by CropKit.

    scripts/animation-figure.py .build/debug/cropkit OUT.png
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

cropkit, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
data = os.environ.get("CROPKIT_TESTDATA", os.path.join(here, "../../shared/testdata"))
source = os.path.join(data, "animated/pillow/iss634.gif")
rect = (61, 40, 123, 151)
spec = importlib.util.spec_from_file_location("animation_check", os.path.join(here, "animation-check.py"))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

with tempfile.TemporaryDirectory() as work:
    cropped = os.path.join(work, "crop.gif")
    subprocess.run([cropkit, "crop", source, "--pixels", ",".join(map(str, rect)), "-o", cropped],
                   check=True, stdout=subprocess.DEVNULL)
    # timeline() yields (canvas, duration) pairs; six are kept.
    count = Image.open(source).n_frames
    picks = [round(i * (count - 1) / 5) for i in range(6)]

    def kept(path):
        canvases = check.timeline(path)[0]
        return {index: canvas.copy() for index, (canvas, _) in enumerate(canvases) if index in picks}

    frames_before, frames_after = kept(source), kept(cropped)
    assert len(frames_before) == len(frames_after) == 6
    scale = 0.75
    x, y, w, h = rect
    cell_w = round(frames_before[0].width * scale)
    cell_h = round(frames_before[0].height * scale)
    crop_h = round(h * scale)
    gap = 8
    figure = Image.new("RGB", (6 * cell_w + 7 * gap, 3 * gap + cell_h + 14 + crop_h), "white")
    draw = ImageDraw.Draw(figure)
    for column, index in enumerate(picks):
        left = gap + column * (cell_w + gap)
        shown = frames_before[index].convert("RGB").resize((cell_w, cell_h), Image.LANCZOS)
        figure.paste(shown, (left, gap))
        draw.rectangle([left + x * scale, gap + y * scale, left + (x + w) * scale, gap + (y + h) * scale],
                       outline=(230, 40, 40), width=2)
        draw.text((left, gap + cell_h + 1), f"frame {index}", fill="black")
        crop = frames_after[index].convert("RGB").resize((round(w * scale), crop_h), Image.LANCZOS)
        figure.paste(crop, (left + round(x * scale), 2 * gap + cell_h + 14))
    figure.quantize(256, dither=Image.Dither.NONE).save(out, optimize=True)
print(out)
