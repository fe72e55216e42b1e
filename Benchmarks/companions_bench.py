"""Companion images' cost: `cropkit crop` of a real Ultra HDR phone photo
(the Pixel 6 Pro JPEG of the shared test data, 4080x3072 with a 1020x768
gain map) to JPEG with its gain map cut (`--companions keep`, the default)
against the same crop without it (`--companions drop`, the floor) and
`vips crop` (which keeps no gain map cut to the crop), off the block grid
first (what a user gets by default), then on it. Prints Markdown rows; each
ratio is to the floor's time.

Then the real iPhone HEICs (12 MP iPhone 13 Pro: a gain map and a depth map;
24 MP iPhone 16: a gain map, three mattes and the 10-bit Styles map), a
2000x1500 centre crop off the tile grid (the rect of heif_bench.py, on
whole gain-map pixels) and one off every companion's pixels (sampled),
then on the tile grid: kept against dropped, and Pillow with pillow-heif,
the fastest peer, which decodes the photo and encodes the crop at quality
90 and keeps no companion."""
import os
import sys

from bench_common import photo_arguments, run_case

PILLOW = """
import sys
from PIL import Image
import pillow_heif
pillow_heif.register_heif_opener()
x, y, w, h = map(int, sys.argv[3].split(","))
Image.open(sys.argv[1]).crop((x, y, x + w, y + h)).save(sys.argv[2], quality=90)
"""

args = photo_arguments(runs=11, only=True)
photo = os.path.join(args.testdata, "hdr/pixel6pro_ultrahdr.jpg")
cases = [
    # A centre crop off the 16-pixel block grid (and off the map's grid).
    ("centre, off the grid", "1001,751,2001,1501"),
    # On the block grid and the map's: every block of both copied.
    ("centre, on the grid", "1024,768,2048,1536"),
    # A 1080-wide variant of the same centre: the map resampled with it.
    ("1080-wide variant", "1001,751,2001,1501"),
]
print("| case | tool | median s | peak MB | bytes | ratio |")
print("| --- | --- | --- | --- | --- | --- |")
for label, rect in cases:
    if args.only and not label.startswith(args.only):
        continue
    x, y, w, h = rect.split(",")
    outputs = {
        tool: os.path.join(args.workdir, f"companions-{tool.split()[0]}-{tool.split()[-1].strip(')')}.jpg")
        for tool in ["cropkit (companions drop)", "cropkit (companions keep)", "vips crop"]
    }

    def command(tool, label=label):
        out = outputs[tool]
        if tool.startswith("vips"):
            if label.startswith("1080"):
                # vips: the crop, then the resize to 1080 wide, in one pipeline.
                scale = 1080 / int(w)
                return ["sh", "-c", f"vips crop {photo} /tmp/vips-crop.v {x} {y} {w} {h} && "
                        f"vips resize /tmp/vips-crop.v {out} {scale} --kernel lanczos3"]
            return ["vips", "crop", photo, out, x, y, w, h]
        choice = "keep" if "keep" in tool else "drop"
        width = ["--width", "1080"] if label.startswith("1080") else []
        return [args.cropkit, "crop", photo, "--pixels", rect, "-o", out, "--force", "--quiet",
                "--companions", choice] + width

    run_case(label, list(outputs), command, outputs, args.runs)

heics = [
    ("12 MP HEIC", "heif/pillow-heif/pug.heic", 4032, 3024),
    ("24 MP HEIC", "heif/libvips/apple-heic-gainmap.heic", 4284, 5712),
]
for name, path, width, height in heics:
    photo = os.path.join(args.testdata, path)
    x, y = width // 2 - 1000, height // 2 - 750
    for label, rect in [
        (f"{name} centre, off the tile grid", f"{x},{y},2000,1500"),
        (f"{name} centre, off every grid", f"{x + 1},{y + 1},2001,1501"),
        (f"{name} centre, grown to the tile grid", f"{x},{y},2000,1500"),
        (f"{name} centre to JPEG", f"{x},{y},2000,1500"),
    ]:
        if args.only and not label.startswith(args.only):
            continue
        tools = ["cropkit (companions drop)", "cropkit (companions keep)", "Pillow"]
        kind = "jpg" if label.endswith("JPEG") else "heic"
        outputs = {tool: os.path.join(args.workdir, f"companions-heic-{n}.{kind}") for n, tool in enumerate(tools)}

        def command(tool, photo=photo, rect=rect, outputs=outputs, label=label):
            out = outputs[tool]
            if tool == "Pillow":
                return [sys.executable, "-c", PILLOW, photo, out, rect]
            choice = "keep" if "keep" in tool else "drop"
            snap = ["--snap-to-blocks"] if "grown" in label else []
            return [args.cropkit, "crop", photo, "--pixels", rect, "-o", out, "--force", "--quiet",
                    "--companions", choice] + snap

        run_case(label, tools, command, outputs, args.runs)
