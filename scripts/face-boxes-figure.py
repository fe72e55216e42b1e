#!/usr/bin/env python3
"""Draws the DocC figure of face boxes before and after a crop.

The boxes are not drawn from the code that maps them: the left panel is the
source's MWG face regions as exiftool reads them, the right panel the
crop's, as exiftool reads them from the file CropKit wrote. No photo pixels
are copied, only the boxes and the crop's outline.

    scripts/face-boxes-figure.py .build/debug/cropkit OUT.png
"""
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

cropkit, out = sys.argv[1], sys.argv[2]
data = os.environ.get("CROPKIT_TESTDATA", os.path.join(os.path.dirname(__file__), "../../shared/testdata"))
source = os.path.join(data, "regions/canon_t3i_o1.jpg")
rect = (92, 154, 714, 422)


def regions(path):
    tags = json.loads(subprocess.check_output(["exiftool", "-j", "-n", "-struct", "-RegionInfo", path]))[0]
    info = tags.get("RegionInfo", {})
    size = info.get("AppliedToDimensions", {})
    boxes = []
    for r in info.get("RegionList", []):
        a = r["Area"]
        boxes.append((r.get("Name", "?"), a["X"], a["Y"], a["W"], a["H"]))
    return (size.get("W"), size.get("H")), boxes


with tempfile.TemporaryDirectory() as folder:
    crop = os.path.join(folder, "crop.jpg")
    subprocess.check_call([cropkit, "crop", source, "--pixels", ",".join(map(str, rect)), "-o", crop],
                          stdout=subprocess.DEVNULL)
    (sw, sh), before = regions(source)
    (cw, ch), after = regions(crop)

scale = 0.42
pad = 24
W = int(sw * scale + cw * scale + 3 * pad)
H = int(max(sh, ch) * scale + 2 * pad + 20)
image = Image.new("RGB", (W, H), (250, 250, 250))
draw = ImageDraw.Draw(image)
colours = {"Alice": (200, 60, 60), "Bruno": (40, 120, 200), "Chen": (60, 150, 60)}


def panel(x0, y0, w, h, boxes, title):
    draw.rectangle([x0, y0, x0 + w * scale, y0 + h * scale], fill=(225, 225, 225), outline=(90, 90, 90))
    draw.text((x0, y0 + h * scale + 4), title, fill=(30, 30, 30))
    for name, x, y, bw, bh in boxes:
        left, top = x0 + (x - bw / 2) * w * scale, y0 + (y - bh / 2) * h * scale
        box = [left, top, left + bw * w * scale, top + bh * h * scale]
        draw.rectangle(box, outline=colours.get(name, (0, 0, 0)), width=3)
        draw.text((box[0] + 4, box[1] + 3), name, fill=colours.get(name, (0, 0, 0)))


panel(pad, pad, sw, sh, before, "before: 1152x768, three faces; the crop's outline dashed")
# The crop's outline on the photo, dashed.
cx0, cy0 = pad + rect[0] * scale, pad + rect[1] * scale
cx1, cy1 = cx0 + rect[2] * scale, cy0 + rect[3] * scale
for a in range(int(cx0), int(cx1), 12):
    draw.line([a, cy0, min(a + 6, cx1), cy0], fill=(230, 140, 0), width=2)
    draw.line([a, cy1, min(a + 6, cx1), cy1], fill=(230, 140, 0), width=2)
for b in range(int(cy0), int(cy1), 12):
    draw.line([cx0, b, cx0, min(b + 6, cy1)], fill=(230, 140, 0), width=2)
    draw.line([cx1, b, cx1, min(b + 6, cy1)], fill=(230, 140, 0), width=2)
names = ", ".join(n for n, *_ in after)
panel(2 * pad + sw * scale, pad, cw, ch, after, f"after: {cw}x{ch}; kept {names} (read back)")
image.save(out, optimize=True)
print(out, [b[0] for b in before], "->", [b[0] for b in after])
