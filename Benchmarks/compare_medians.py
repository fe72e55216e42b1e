#!/usr/bin/env python3
"""Medians of many alternating runs of two cropkit binaries on the centre
crops (a JPEG without and with the iPhone's EXIF and XMP regions, a HEIC):
what resolves a cost of 1-2 % where compare_builds.py's 15 runs cannot.

    compare_medians.py BEFORE AFTER [WORKDIR]

WORKDIR holds make_inputs.py's JPEGs (default /tmp/cropkit-bench); the
HEIC comes from CROPKIT_TESTDATA (default ../shared/testdata).
"""
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
testdata = os.environ.get("CROPKIT_TESTDATA", os.path.join(here, "../../shared/testdata"))
before, after = sys.argv[1], sys.argv[2]
workdir = sys.argv[3] if len(sys.argv) > 3 else "/tmp/cropkit-bench"
CASES = [
    ("JPEG centre 2000x1500 off the grid, no metadata", os.path.join(workdir, "iphone13pro.jpg"), "jpg", 80),
    ("JPEG centre, the iPhone's EXIF and XMP regions", os.path.join(workdir, "iphone13pro_meta.jpg"), "jpg", 80),
    ("HEIC centre, pug.heic (SubjectArea, MWG, depth calibration)",
     os.path.join(testdata, "heif/pillow-heif/pug.heic"), "heic", 40),
]
print("| case | runs | before (median s) | after (median s) | after / before |")
print("| --- | --- | --- | --- | --- |")
for name, source, ext, runs in CASES:
    times = {before: [], after: []}
    output = os.path.join(workdir, "medians." + ext)
    for _ in range(runs):
        for binary in (before, after):
            start = time.perf_counter()
            subprocess.run([binary, "crop", source, "--force", "-q", "-o", output, "--pixels", "1009,759,2000,1500"],
                           check=True)
            times[binary].append(time.perf_counter() - start)
    b, a = statistics.median(times[before]), statistics.median(times[after])
    print(f"| {name} | {runs} | {b:.4f} | {a:.4f} | {a / b:.3f} |", flush=True)
