#!/usr/bin/env python3
"""Times two cropkit binaries side by side on the same crops of real phone
photos (the inputs make_inputs.py decodes from the Apple HEICs), each case
run alternately by both, and prints the medians and their ratio: how a
refactor that should change no output proves it costs no time either.

    compare_builds.py BEFORE AFTER WORKDIR TESTDATA [--runs N]
"""
import os
import statistics
import subprocess
import sys
import time

# (name, input under WORKDIR or TESTDATA, options, output extension): the
# default cases first (crops off the block or tile grid), then the best.
CASES = [
    ("JPEG to JPEG, 2000x1500 off the grid", "w:iphone13pro.jpg", ["--pixels", "1009,759,2000,1500"], "jpg"),
    ("JPEG with the iPhone's EXIF and XMP (SubjectArea, two MWG regions), 2000x1500 off the grid",
     "w:iphone13pro_meta.jpg", ["--pixels", "1009,759,2000,1500"], "jpg"),
    ("JPEG to PNG, 2000x1500", "w:iphone13pro.jpg", ["--pixels", "1009,759,2000,1500"], "png"),
    ("PNG to PNG, 2000x1500", "w:iphone13pro_rgb.png", ["--pixels", "1009,759,2000,1500"], "png"),
    ("HEIC to HEIC, 2000x1500 off the grid", "t:heif/pillow-heif/pug.heic", ["--pixels", "1009,759,2000,1500"], "heic"),
    ("HEIC to JPEG, the whole 24 MP photo to 1080 wide", "t:heif/libvips/apple-heic-gainmap.heic", ["--pixels", "0,0,4284,5712", "--width", "1080", "--max-memory", "512M"], "jpg"),
    ("JPEG straightened 3.5 degrees, largest 3:4 inside", "w:iphone13pro.jpg", ["--angle", "3.5", "--inside", "--aspect", "3:4"], "jpg"),
    ("JPEG avatar, 1200x1200 circled to 512", "w:iphone13pro.jpg", ["--pixels", "1400,1000,1200,1200", "--circle", "--width", "512"], "jpg"),
    ("HEIC avatar, 1200x1200 circled to 512", "t:heif/pillow-heif/pug.heic", ["--pixels", "1400,1000,1200,1200", "--circle", "--width", "512"], "jpg"),
    ("JPEG variants: 1080 wide, 512 circle, PNG 300", "w:iphone13pro.jpg",
     ["--pixels", "1000,1000,2000,2000", "--width", "1080", "-o", "{work}/compare-v2.jpg", "--pixels", "1400,1400,1200,1200",
      "--circle", "--width", "512", "-o", "{work}/compare-v3.png", "--pixels", "1000,1000,2000,2000", "--width", "300"], "jpg"),
    ("JPEG to JPEG, 2000x1504 on the grid", "w:iphone13pro.jpg", ["--pixels", "1008,752,2000,1504"], "jpg"),
    ("HEIC to HEIC, 2048x1536 on the tile grid", "t:heif/pillow-heif/pug.heic", ["--pixels", "1024,512,2048,1536"], "heic"),
]


def timed(binary, source, options, output):
    start = time.perf_counter()
    subprocess.run([binary, "crop", source, "--force", "-q", "-o", output] + options,
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def batch_manifest(workdir):
    """The manifest of Benchmarks/run-batch: 200 crops of 300x300 at
    spread-out places of the 12 MP JPEG, into WORKDIR/compare-batch/."""
    path = os.path.join(workdir, "compare-batch.jsonl")
    with open(path, "w") as manifest:
        for i in range(200):
            x, y = (i * 367) % 3732, (i * 211) % 2724
            manifest.write(
                '{"input":"iphone13pro.jpg","output":"compare-batch/%d.png",'
                '"pixels":{"x":%d,"y":%d,"width":300,"height":300}}\n' % (i, x, y))
    return path


def timed_batch(binary, manifest, workdir):
    report = os.path.join(workdir, "compare-batch-report.jsonl")
    start = time.perf_counter()
    subprocess.run([binary, "batch", manifest, "--force", "--report", report],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    before, after, workdir, testdata = sys.argv[1:5]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    print("| case | before (median s) | after (median s) | after / before |")
    print("| --- | --- | --- | --- |")
    # --batch-only: the batch alone (a change to the batch engine).
    for name, where, options, ext in ([] if "--batch-only" in sys.argv else CASES):
        source = os.path.join(workdir if where.startswith("w:") else testdata, where[2:])
        output = os.path.join(workdir, "compare-out." + ext)
        options = [option.replace("{work}", workdir) for option in options]
        times = {before: [], after: []}
        timed(before, source, options, output)  # warm the page cache
        for _ in range(runs):
            for binary in (before, after):
                times[binary].append(timed(binary, source, options, output))
        b, a = statistics.median(times[before]), statistics.median(times[after])
        print(f"| {name} | {b:.3f} | {a:.3f} | {a / b:.3f} |", flush=True)
    # Benchmarks/run-batch's batch, side by side: its report lines are
    # what a refactor of the machine interface changes.
    manifest = batch_manifest(workdir)
    times = {before: [], after: []}
    timed_batch(before, manifest, workdir)
    for _ in range(runs):
        for binary in (before, after):
            times[binary].append(timed_batch(binary, manifest, workdir))
    b, a = statistics.median(times[before]), statistics.median(times[after])
    print(f"| batch: 200 crops of 300x300 of the 12 MP JPEG, report written | {b:.3f} | {a:.3f} | {a / b:.3f} |",
          flush=True)


if __name__ == "__main__":
    main()
