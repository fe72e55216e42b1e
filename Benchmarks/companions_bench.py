"""Companion images' cost: `cropkit crop` of a real Ultra HDR phone photo
(the Pixel 6 Pro JPEG of the shared test data, 4080x3072 with a 1020x768
gain map) to JPEG with its gain map cut (`--companions keep`, the default)
against the same crop without it (`--companions drop`, the floor) and
`vips crop` (which keeps no gain map cut to the crop), off the block grid
first (what a user gets by default), then on it. Prints Markdown rows; each
ratio is to the floor's time."""
import os

from bench_common import photo_arguments, run_case

args = photo_arguments(runs=11, only=True)
photo = os.path.join(args.testdata, "hdr/pixel6pro_ultrahdr.jpg")
cases = [
    # A centre crop off the 16-pixel block grid (and off the map's grid).
    ("centre, off the grid", "1001,751,2001,1501"),
    # On the block grid and the map's: every block of both copied.
    ("centre, on the grid", "1024,768,2048,1536"),
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

    def command(tool):
        out = outputs[tool]
        if tool.startswith("vips"):
            return ["vips", "crop", photo, out, x, y, w, h]
        choice = "keep" if "keep" in tool else "drop"
        return [args.cropkit, "crop", photo, "--pixels", rect, "-o", out, "--force", "--quiet",
                "--companions", choice]

    run_case(label, list(outputs), command, outputs, args.runs)
