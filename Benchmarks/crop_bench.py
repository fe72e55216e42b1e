#!/usr/bin/env python3
"""Times `cropkit crop` against libvips, ImageMagick and Pillow on the same
crops of the same inputs, in one run, and prints a Markdown table: median
wall time (perf_counter around the bare process), peak RSS (GNU time's
maximum resident set size, in one more run), output bytes, and
whether each tool's output holds exactly CropKit's pixels.

    crop_bench.py CROPKIT WORKDIR [--runs N] [--cases NAME,NAME]

Each case is an input file and a crop rect; inputs are real phone photos,
made by make_inputs.py from the HEICs in the shared test data.
Tools run in turn within each round, so no tool always gets a warmer machine.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (input made by make_inputs.py from a real phone photo, mode, (x, y, w, h)).
# 12 MP: the iPhone 13 Pro photo (4032x3024) unless named; 24 MP: the
# iPhone 16 photo (portrait, 4284x5712). Every input is a real photo; the
# synthetic generator (make_photo.py) is kept only for sizes no real photo
# here has, and no case uses it now.
CASES = {
    "png-rgba-12mp-centre": ("iphone13pro_rgba.png", "RGBA", (1016, 762, 2000, 1500)),
    "png-rgb-12mp-centre": ("iphone13pro_rgb.png", "RGB", (1016, 762, 2000, 1500)),
    "png-rgba-12mp-small-top-left": ("iphone13pro_rgba.png", "RGBA", (0, 0, 300, 300)),
    "png-rgba-12mp-small-bottom-right": ("iphone13pro_rgba.png", "RGBA", (3732, 2724, 300, 300)),
    "png-rgba-12mp-full": ("iphone13pro_rgba.png", "RGBA", (0, 0, 4032, 3024)),
    "jpeg-12mp-centre": ("iphone13pro.jpg", "RGB", (1016, 762, 2000, 1500)),
    "jpeg-12mp-iphone7plus-centre": ("iphone7plus.jpg", "RGB", (1016, 762, 2000, 1500)),
    "jpeg-12mp-iphone8plus-centre": ("iphone8plus.jpg", "RGB", (512, 1266, 2000, 1500)),
    "jpeg-12mp-full": ("iphone13pro.jpg", "RGB", (0, 0, 4032, 3024)),
    "jpeg-24mp-centre": ("iphone16.jpg", "RGB", (642, 1856, 3000, 2000)),
    "jpeg-24mp-iphone16-2000x1500-centre": ("iphone16.jpg", "RGB", (1142, 2106, 2000, 1500)),
    "jpeg-24mp-small-centre": ("iphone16.jpg", "RGB", (1992, 2706, 300, 300)),
    "jpeg-24mp-small-top-left": ("iphone16.jpg", "RGB", (0, 0, 300, 300)),
    "jpeg-24mp-small-bottom-right": ("iphone16.jpg", "RGB", (3984, 5412, 300, 300)),
    "png-rgb-12mp-small-top-left": ("iphone13pro_rgb.png", "RGB", (0, 0, 300, 300)),
    "png-rgb-12mp-small-bottom-right": ("iphone13pro_rgb.png", "RGB", (3732, 2724, 300, 300)),
}


def ensure_input(workdir, testdata, name):
    """The real-photo input, made once by make_inputs.py."""
    path = os.path.join(workdir, name)
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "make_inputs.py"), testdata, workdir], check=True)
    return path


def commands(tool, cropkit, src, out, rect, reference=None):
    x, y, w, h = rect
    if tool == "c-reference":
        return [reference, src, out, str(x), str(y), str(w), str(h)]
    if tool == "decode-only":
        return [reference, src, "-", str(x), str(y), str(w), str(h)]
    if tool == "cropkit":
        return [cropkit, "crop", src, "-o", out, "--pixels", f"{x},{y},{w},{h}", "--force"]
    if tool == "libvips":
        return ["vips", "crop", src, out, str(x), str(y), str(w), str(h)]
    if tool == "imagemagick":
        return ["convert", src, "-crop", f"{w}x{h}+{x}+{y}", "+repage", out]
    if tool == "pillow":
        return [sys.executable, "-c",
                "import sys; from PIL import Image; "
                "Image.open(sys.argv[1]).crop((int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[3]) + int(sys.argv[5]), "
                "int(sys.argv[4]) + int(sys.argv[6]))).save(sys.argv[2])",
                src, out, str(x), str(y), str(w), str(h)]
    raise ValueError(tool)


def timed(command):
    """Wall seconds: perf_counter around the bare process (microsecond
    resolution, nothing else started with it)."""
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr.decode(errors='replace').strip()[-400:]}")
    return seconds


def peak_rss(command):
    """Peak RSS in KiB, from GNU time's %M in a separate run (a child forked
    from this Python process would report Python's own RSS as its peak,
    since Linux keeps the peak across exec)."""
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr.strip()[-400:]}")
    return int(result.stderr.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--testdata", default=os.path.join(HERE, "..", "..", "shared", "testdata"))
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--reference", help="the C reference binary (Benchmarks/reference/build)")
    parser.add_argument("--chart", help="write a PNG chart of the time ratios here")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    tools = ["cropkit", "libvips", "imagemagick", "pillow"] + (["c-reference", "decode-only"] if args.reference else [])
    rows = []
    for case in args.cases.split(","):
        name, mode, rect = CASES[case]
        src = ensure_input(args.workdir, args.testdata, name)
        times = {tool: [] for tool in tools}
        rss = {tool: 0 for tool in tools}
        outputs = {tool: os.path.join(args.workdir, f"out-{case}-{tool}.png") for tool in tools}
        for _ in range(args.runs):
            for tool in tools:
                times[tool].append(timed(commands(tool, args.cropkit, src, outputs[tool], rect, args.reference)))
        for tool in tools:
            rss[tool] = peak_rss(commands(tool, args.cropkit, src, outputs[tool], rect, args.reference))
        reference = Image.open(outputs["cropkit"])
        reference_pixels = reference.tobytes()
        raw_crop = rect[2] * rect[3] * len(mode)
        for tool in tools:
            if tool == "decode-only":
                rows.append((case, tool, statistics.median(times[tool]), rss[tool] / 1024, 0, None, raw_crop))
                continue
            image = Image.open(outputs[tool])
            same = image.size == reference.size and image.convert(reference.mode).tobytes() == reference_pixels
            rows.append((case, tool, statistics.median(times[tool]), rss[tool] / 1024, os.path.getsize(outputs[tool]),
                         same, raw_crop))
    print(f"| case | tool | median s ({args.runs} runs) | peak RSS MiB | output bytes | same pixels as cropkit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case, tool, seconds, rss_mb, size, same, _ in rows:
        shown = "n/a (no output)" if same is None else ("yes" if same else "NO")
        print(f"| {case} | {tool} | {seconds:.3f} | {rss_mb:.1f} | {size} | {shown} |")
    print()
    reference = " | cropkit / C reference time" if args.reference else ""
    print("| case | libvips / cropkit time | pillow / cropkit time | imagemagick / cropkit time "
          f"| cropkit bytes / pillow bytes | cropkit RSS − raw crop (MiB){reference} |")
    print("| --- | --- | --- | --- | --- | ---" + (" | ---" if args.reference else "") + " |")
    ratios = {}
    for case in args.cases.split(","):
        r = {tool: row for row in rows if row[0] == case for tool in [row[1]]}
        ck = r["cropkit"]
        ratios[case] = {tool: r[tool][2] / max(ck[2], 1e-9) for tool in ["libvips", "pillow", "imagemagick"]}
        extra = f" | {ck[2] / max(r['c-reference'][2], 1e-9):.2f}" if args.reference else ""
        print(f"| {case} | {r['libvips'][2] / ck[2]:.2f} | {r['pillow'][2] / ck[2]:.2f} | "
              f"{r['imagemagick'][2] / ck[2]:.2f} | {ck[4] / r['pillow'][4]:.3f} | {ck[3] - ck[6] / 1048576:.1f}{extra} |")
    if args.reference:
        goals(rows, args.cases.split(","))
    if args.chart:
        chart(ratios, args.chart)


def goals(rows, cases):
    """Issue 6's speed goals per case: the time each goal needs, against
    CropKit's time and the decoder's own floor (the crop decoded by the same
    libpng/libjpeg calls, nothing encoded or written)."""
    print()
    print("| case | cropkit s | decode alone s | libvips goal: needs s | verdict "
          "| Pillow/ImageMagick goal: needs s | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for case in cases:
        r = {row[1]: row[2] for row in rows if row[0] == case}
        jpeg = case.startswith("jpeg")
        big = ("centre" in case and "small" not in case) or "full" in case
        vips_factor = 3 if jpeg else (2 if big else 1)
        other_factor = 10 if jpeg else (5 if big else None)

        def verdict(needed):
            if r["cropkit"] <= needed:
                return "met"
            if needed < r["decode-only"]:
                return "not met: below the decode alone"
            return "not met"

        vips_needed = r["libvips"] / vips_factor
        line = (f"| {case} | {r['cropkit']:.3f} | {r['decode-only']:.3f} | {vips_needed:.3f} ({vips_factor}x) "
                f"| {verdict(vips_needed)} |")
        if other_factor:
            other_needed = min(r["pillow"], r["imagemagick"]) / other_factor
            line += f" {other_needed:.3f} ({other_factor}x) | {verdict(other_needed)} |"
        else:
            line += " (no goal) | |"
        print(line)


def chart(ratios, path):
    """A bar chart (Pillow only): each tool's time over CropKit's, per case."""
    from PIL import ImageDraw
    colours = {"libvips": (47, 109, 179), "pillow": (224, 123, 0), "imagemagick": (26, 143, 58)}
    cases = list(ratios)
    top = max(max(v.values()) for v in ratios.values()) * 1.1
    width, height, left, bottom = 120 + 110 * len(cases), 420, 60, 90
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    plot = height - bottom - 30
    for tick in range(0, int(top) + 1, max(1, int(top) // 8)):
        y = height - bottom - plot * tick / top
        draw.line([(left, y), (width - 20, y)], fill=(225, 225, 225))
        draw.text((10, y - 6), f"{tick}x", fill=(60, 60, 60))
    y1 = height - bottom - plot / top
    draw.line([(left, y1), (width - 20, y1)], fill=(200, 0, 0))
    for i, case in enumerate(cases):
        for j, tool in enumerate(colours):
            x = left + 10 + i * 110 + j * 28
            y = height - bottom - plot * ratios[case][tool] / top
            draw.rectangle([x, y, x + 24, height - bottom], fill=colours[tool])
        draw.text((left + 8 + i * 110, height - bottom + 6), case.replace("-", "\n", 2)[:40], fill=(30, 30, 30))
    for j, tool in enumerate(colours):
        draw.rectangle([left + j * 150, 8, left + j * 150 + 12, 20], fill=colours[tool])
        draw.text((left + j * 150 + 18, 8), f"{tool} time / cropkit time", fill=(30, 30, 30))
    image.save(path)


if __name__ == "__main__":
    main()
