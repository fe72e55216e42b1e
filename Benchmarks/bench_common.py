"""What the crop benchmarks share: timing a command, its peak RSS (GNU
time), and one case run in rounds, tools in turn, printed as Markdown rows
with each anchor's time as a ratio of cropkit's."""
import argparse
import os
import statistics
import subprocess
import time


def timed(args):
    """Seconds `args` took, or None and the last line it printed on failing."""
    start = time.perf_counter()
    result = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    return (elapsed, None) if result.returncode == 0 else (None, result.stderr.strip().splitlines()[-1][:80])


def peak_kb(args):
    """The peak resident set of `args`, in KB."""
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, capture_output=True, text=True)
    return int(result.stderr.strip().splitlines()[-1])


def run_case(label, tools, command, outputs, runs):
    """Runs `command(tool)` for each tool in turn, `runs` rounds, and prints
    a row a tool: median seconds, peak MB, output bytes, ratio to the first
    tool (cropkit)."""
    times = {tool: [] for tool in tools}
    failures = {}
    for _ in range(runs):
        for tool in tools:
            if tool in failures:
                continue
            elapsed, failure = timed(command(tool))
            if failure:
                failures[tool] = failure
            else:
                times[tool].append(elapsed)
    base = statistics.median(times[tools[0]])
    for tool in tools:
        if tool in failures:
            print(f"| {label} | {tool} | fails | | | {failures[tool]} |")
            continue
        median = statistics.median(times[tool])
        kb = peak_kb(command(tool))
        size = os.path.getsize(outputs[tool])
        ratio = "" if tool == tools[0] else f"{median / base:.2f}x cropkit's time"
        print(f"| {label} | {tool} | {median:.3f} | {kb / 1024:.1f} | {size} | {ratio} |")


def photo_arguments(runs, only=False):
    """The arguments of a benchmark of the shared test data's photos:
    CROPKIT TESTDATA WORKDIR [--runs N] (default `runs`) [--only CASE];
    WORKDIR is made."""
    parser = argparse.ArgumentParser()
    parser.add_argument("cropkit")
    parser.add_argument("testdata")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=runs)
    if only:
        parser.add_argument("--only", help="run only the cases whose name starts with this")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    return args
