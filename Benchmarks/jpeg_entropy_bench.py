#!/usr/bin/env python3
"""The cases issue 55 sets goals for, timed as they are: JPEG -> JPEG crops
of real photos with and without restart markers, against jpegtran -crop, in
one run, tools in turn within each round. For each: the median wall time,
the median CPU time (user + system, from wait4), the output bytes and the
ratio of jpegtran's wall time to cropkit's; then cropkit pinned to one core
(taskset -c 0), so a user on one core knows what to expect.

    jpeg_entropy_bench.py CROPKIT TESTDATA WORKDIR [--runs N] [--only CASE] [--before OLD]

With --before, an older cropkit runs each case too ("cropkit before"), and
the last column gives its time over the new one's as well.

Photos (stored pixels, as jpegtran takes them; cropkit is given
--orientation 1):
- pixel: hdr/pixel6pro_ultrahdr.jpg, 4080x3072 4:2:0, no restart markers;
- pug92: the iPhone 13 Pro's pug.heic as JPEG quality 92 4:2:0 by Pillow's
  libjpeg-turbo (make_inputs.py's iphone13pro.jpg), no restart markers;
- pug92-rst: the same pixels by cjpeg -quality 92 -restart 1 (one restart
  interval per MCU row);
- iphone6: camera/iphone6_gps_hdr.jpg, 3264x2448 4:2:0, DRI 204 (one
  restart interval per MCU row), as the iPhone wrote it.
"""
import os
import statistics
import subprocess
import sys
import time

from bench_common import photo_arguments

PHOTOS = {
    # name: (path, stored width, height)
    "pixel": ("T:hdr/pixel6pro_ultrahdr.jpg", 4080, 3072),
    "pug92": ("W:iphone13pro.jpg", 4032, 3024),
    "pug92-rst": ("W:pug92-rst.jpg", 4032, 3024),
    "iphone6": ("T:camera/iphone6_gps_hdr.jpg", 3264, 2448),
}


def grid(value):
    """`value` down to the 16-pixel iMCU grid."""
    return value // 16 * 16


def cases():
    """(label, photo, rect, lossless) for each goal of issue 55."""
    found = []
    for photo, (_, width, height) in PHOTOS.items():
        x, y = grid(width // 2 - 1000), grid(height // 2 - 752)
        if photo in ("iphone6", "pug92-rst"):
            # The default first: a dragged selection, one pixel off the grid.
            found.append((f"{photo} centre one pixel off the grid (re-encoded)", photo,
                          (x + 1, y, 1999, 1504), False))
        found.append((f"{photo} centre on the grid", photo, (x, y, 2000, 1504), True))
        if photo in ("iphone6", "pug92-rst"):
            half = grid(height // 2)
            found.append((f"{photo} top half on the grid", photo, (0, 0, width, half), True))
            found.append((f"{photo} bottom half on the grid", photo,
                          (0, height - half, width, half), True))
    return found


def run(command):
    """Wall and CPU seconds of one run (its output to /dev/null)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command[0]} failed: {process.stderr.read().decode()[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    before = None
    if "--before" in sys.argv:
        at = sys.argv.index("--before")
        before = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    args = photo_arguments(5, only=True)
    pug = os.path.join(args.workdir, "iphone13pro.jpg")
    marked = os.path.join(args.workdir, "pug92-rst.jpg")
    if not os.path.exists(marked):
        ppm = os.path.join(args.workdir, "pug92.ppm")
        subprocess.run(["djpeg", "-ppm", "-outfile", ppm, pug], check=True)
        subprocess.run(["cjpeg", "-quality", "92", "-restart", "1", "-outfile", marked, ppm], check=True)
        os.remove(ppm)
    print("| case | tool | median s | CPU s | bytes | jpegtran / tool |" + (" before / tool |" if before else ""))
    print("| --- | --- | ---: | ---: | ---: | ---: |" + (" ---: |" if before else ""))
    for label, photo, (x, y, w, h), lossless in cases():
        if args.only and not label.startswith(args.only):
            continue
        where, _, _ = PHOTOS[photo]
        source = os.path.join(args.testdata if where.startswith("T:") else args.workdir, where[2:])
        out = {tool: os.path.join(args.workdir, f"entropy-{n}.jpg") for n, tool in enumerate(
            ["cropkit", "cropkit, one core", "jpegtran -crop", "cropkit before"])}
        crop = [args.cropkit, "crop", source, "--pixels", f"{x},{y},{w},{h}", "--orientation", "1",
                "-f", "-q"]
        commands = {
            "cropkit": crop + ["-o", out["cropkit"]] + (["--lossless"] if lossless else []),
            "cropkit, one core": ["taskset", "-c", "0"] + crop + ["-o", out["cropkit, one core"]]
            + (["--lossless"] if lossless else []),
            # jpegtran cuts on the grid whatever it is given: the grid rect.
            "jpegtran -crop": ["jpegtran", "-crop", f"{w + (x % 16)}x{h}+{grid(x)}+{y}", "-copy", "all",
                               "-outfile", out["jpegtran -crop"], source],
        }
        if before:
            commands["cropkit before"] = [before] + crop[1:] + ["-o", out["cropkit before"]] + (
                ["--lossless"] if lossless else [])
        times = {tool: [] for tool in commands}
        for command in commands.values():
            run(command)  # the page cache warmed
        for _ in range(args.runs):
            for tool, command in commands.items():
                times[tool].append(run(command))
        anchor = statistics.median(wall for wall, _ in times["jpegtran -crop"])
        old = statistics.median(wall for wall, _ in times["cropkit before"]) if before else None
        for tool, samples in times.items():
            wall = statistics.median(s for s, _ in samples)
            cpu = statistics.median(c for _, c in samples)
            ratio = "" if tool.startswith("jpegtran") else f"{anchor / wall:.2f}x"
            line = f"| {label} | {tool} | {wall:.3f} | {cpu:.3f} | {os.path.getsize(out[tool])} | {ratio} |"
            if before:
                line += f" {old / wall:.2f}x |" if tool.startswith("cropkit") else " |"
            print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
