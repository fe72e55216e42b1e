"""cropkit batch on a real Slurm cluster (scripts/slurm's single node), and
the GNU parallel line and the Kubernetes Indexed Job's command run here,
each through its one source in scripts/cluster/. Run by scripts/slurm-test,
which starts and stops the cluster.

  python slurm-test.py CROPKIT TESTDATA WORKDIR

Each scenario crops a manifest of real photos (iPhone HEICs and camera
JPEGs; PNG, JPEG and HEIC outputs, resized and turned lines among them),
merges the shards' reports with cropkit batch --merge, and checks that the
merge is complete, that every output decodes (Pillow, pillow-heif) to the
size its line asks for, and that no other file is in the output folder (no
partial output, no duplicate, no temporary).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from PIL import Image
from pillow_heif import register_heif_opener

register_heif_opener()

CROPKIT, TESTDATA, WORK = sys.argv[1:4]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SBATCH = os.path.join(ROOT, "scripts", "cluster", "crop-array.sbatch")
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


PHOTOS = [
    ("heif/pillow-heif/pug.heic", 4032, 3024),
    ("heif/libvips/Example1.heic", 4032, 3024),
    ("camera/iphone6_gps_hdr.jpg", 3264, 2448),
    ("camera/canon_t3i.jpg", 1152, 768),
]


def local_photos(folder, prefix=""):
    """The photos linked (or copied) into folder/photos, so that every input
    and output lies inside the folder, the root the recipes are given."""
    os.makedirs(os.path.join(folder, "photos"), exist_ok=True)
    names = []
    for path, _, _ in PHOTOS:
        name = os.path.join("photos", prefix + os.path.basename(path))
        try:
            os.link(os.path.join(TESTDATA, path), os.path.join(folder, name))
        except OSError:
            shutil.copyfile(os.path.join(TESTDATA, path), os.path.join(folder, name))
        names.append(name)
    return names


def manifest(folder, lines=40, name="manifest.jsonl", prefix=""):
    """Crops of real photos, off every block and tile grid: a line asks for
    pixels, a size, or a turn and a size; outputs PNG, JPEG and HEIC."""
    rows, sizes = [], []
    os.makedirs(folder, exist_ok=True)
    photos = local_photos(folder, prefix)
    for i in range(lines):
        path, w, h = PHOTOS[i % len(PHOTOS)]
        x, y = (i * 97 + 13) % (w - 700), (i * 61 + 7) % (h - 500)
        # HEIC out of a HEIC photo only (a JPEG's pixels would all be encoded again).
        ext = ["png", "jpg", "heic"][i % 3] if path.endswith(".heic") else ["png", "jpg"][i % 2]
        line = {"input": photos[i % len(PHOTOS)], "output": f"out/{i:03d}.{ext}",
                "pixels": {"x": x, "y": y, "width": 600 - i, "height": 400 + i}}
        size = (600 - i, 400 + i)
        if i % 5 == 1:
            line["size"] = "320x240"
            size = (320, 240)
        if i % 5 == 3:
            line["angle"] = 2.5 + i / 10
            line["size"] = "300x200"
            size = (300, 200)
        if i % 5 in (1, 3) and ext == "heic":
            # A resized or turned crop is encoded again: PNG, not HEIC.
            ext = "png"
            line["output"] = f"out/{i:03d}.png"
        rows.append(json.dumps(line))
        sizes.append((line["output"], size))
    with open(os.path.join(folder, name), "w") as f:
        f.write("\n".join(rows) + "\n")
    return sizes


def fresh(name, lines=40):
    folder = os.path.join(WORK, name)
    shutil.rmtree(folder, ignore_errors=True)
    return folder, manifest(folder, lines)


def submit(folder, array, shards, reports="reports", extra=(), name="manifest.jsonl"):
    result = run(["sbatch", "--parsable", f"--array={array}", *extra, SBATCH, name,
                  str(shards), reports, folder], cwd=folder, env={**os.environ, "CROPKIT": CROPKIT})
    if result.returncode != 0:
        raise RuntimeError(f"sbatch: {result.stderr.strip()}")
    return result.stdout.strip().split(";")[0]


def queued(job):
    return run(["squeue", "-h", "-j", job, "-o", "%i %T %r"]).stdout.split("\n")


def wait(job, seconds=300):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not [line for line in queued(job) if line.strip()]:
            return True
        time.sleep(0.3)
    return False


def merge(folder, reports):
    result = run([CROPKIT, "batch", "manifest.jsonl", "--merge", *reports, "--report", "merged.jsonl"],
                 cwd=folder)
    return result.returncode, result.stderr


def reports_in(folder, sub="reports"):
    return sorted(os.path.join(sub, name) for name in os.listdir(os.path.join(folder, sub)))


def outputs_ok(folder, sizes):
    """Every output decodes to its size; the folder holds nothing else."""
    problems = []
    for output, size in sizes:
        try:
            with Image.open(os.path.join(folder, output)) as image:
                image.load()
                if image.size != size:
                    problems.append(f"{output} is {image.size}, not {size}")
        except Exception as error:  # noqa: BLE001 - any failure to decode is the finding
            problems.append(f"{output}: {error}")
    present = set(os.listdir(os.path.join(folder, "out")))
    wanted = {os.path.basename(output) for output, _ in sizes}
    extra = sorted(present - wanted)
    if extra:
        problems.append(f"unexpected files in out/: {extra[:5]}")
    return problems


def shard_lines(shards, index, count=40):
    return [i + 1 for i in range(count) if i % shards == index]


def scenario_array():
    folder, sizes = fresh("array")
    job = submit(folder, "0-3", 4)
    finished = wait(job)
    code, summary = merge(folder, reports_in(folder))
    problems = outputs_ok(folder, sizes)
    check(finished and code == 0 and "40 done" in summary and not problems,
          f"a 4-task array over 40 real-photo crops: the merge is complete and every output "
          f"decodes to its size ({summary.strip().splitlines()[0]}; {problems[:3]})")


def scenario_killed_task():
    folder, sizes = fresh("killed")
    job = submit(folder, "0-3", 4)
    shard0 = [sizes[i - 1][0] for i in shard_lines(4, 0)]
    killed = None
    deadline = time.time() + 120
    while time.time() < deadline and killed is None:
        done = [o for o in shard0 if os.path.exists(os.path.join(folder, o))]
        if 1 <= len(done) < len(shard0):
            found = run(["pgrep", "-f", "batch --shard 0/4 "]).stdout.split()
            if found:
                for pid in found:
                    os.kill(int(pid), signal.SIGKILL)
                killed = len(done)
        time.sleep(0.02)
    wait(job)
    code, summary = merge(folder, reports_in(folder))
    missing = re.search(r"missing \(in no report; rerun their shards\): (.*)", summary)
    expected = ", ".join(str(line) for line in shard_lines(4, 0))
    check(killed is not None and code == 1 and missing and missing.group(1) == expected,
          f"shard 0 killed with SIGKILL after {killed} of its {len(shard0)} outputs: the merge "
          f"names exactly its lines missing ({missing.group(1) if missing else summary.strip()})")
    again = submit(folder, "0", 4)
    wait(again)
    code, summary = merge(folder, reports_in(folder))
    problems = outputs_ok(folder, sizes)
    skipped = re.search(r"(\d+) skipped", summary)
    check(code == 0 and "40 done" in summary and not problems and skipped
          and int(skipped.group(1)) >= (killed or 1),
          f"the same array index submitted again: complete, the killed run's outputs skipped as "
          f"complete, none partial or duplicated, no temporary ({summary.strip().splitlines()[0]}; {problems[:3]})")


def scenario_node_lost():
    folder, sizes = fresh("requeued", lines=60)
    job = submit(folder, "0-3", 4)
    deadline = time.time() + 120
    while time.time() < deadline:
        if any(os.path.exists(os.path.join(folder, o)) for o, _ in sizes):
            break
        time.sleep(0.05)
    # The node is lost: slurmd, its job steps and the tasks under them.
    subprocess.run([os.path.join(ROOT, "scripts", "slurm"), "kill-slurmd"], check=False)
    subprocess.run(["pkill", "-9", "-f", "batch --shard"], check=False)
    requeued = False
    lost = time.time()
    deadline = time.time() + 90
    while time.time() < deadline and not requeued:
        states = " ".join(queued(job))
        requeued = "PENDING" in states and "RUNNING" not in states
        time.sleep(0.5)
    print(f"      (the controller found the node lost and requeued its tasks in {time.time() - lost:.1f} s)",
          flush=True)
    subprocess.run([os.path.join(ROOT, "scripts", "slurm"), "start-slurmd"], check=False)
    # Slurm holds a requeued job about two minutes before it may start
    # again (its BeginTime); a test need not wait for that.
    deadline = time.time() + 60
    while time.time() < deadline and "BeginTime" not in " ".join(queued(job)):
        time.sleep(0.5)
    update = run(["scontrol", "update", f"JobId={job}", "StartTime=now"])
    if update.returncode != 0 and "No error" not in update.stderr:
        print(f"      (scontrol update: {update.stderr.strip()})", flush=True)
    finished = wait(job, 300)
    restarts = run(["scontrol", "show", "job", job]).stdout
    restarted = len(re.findall(r"Restarts=[1-9]", restarts))
    code, summary = merge(folder, reports_in(folder))
    problems = outputs_ok(folder, sizes)
    check(requeued and finished and restarted >= 1 and code == 0 and "60 done" in summary
          and not problems,
          f"slurmd and its tasks killed mid-array, then started again: {restarted} task(s) requeued "
          f"and rerun, the merge complete, no partial output ({summary.strip().splitlines()[0]}; {problems[:3]})")


def scenario_overlapping_arrays():
    folder, sizes = fresh("overlap")
    first = submit(folder, "0-3", 4, reports="reports-a")
    second = submit(folder, "0-1", 2, reports="reports-b")
    wait(first)
    wait(second)
    reports = reports_in(folder, "reports-a") + reports_in(folder, "reports-b")
    code, summary = merge(folder, reports)
    problems = outputs_ok(folder, sizes)
    repeated = re.search(r"(\d+) lines are in more than one report", summary)
    check(code == 0 and "40 done" in summary and repeated and repeated.group(1) == "40"
          and not problems,
          f"two arrays with overlapping shards into one folder: each output written once, the "
          f"other array skips it, and the merge says every line was reported twice "
          f"({' / '.join(summary.strip().splitlines()[:2])}; {problems[:3]})")


def scenario_parallel_and_kubernetes():
    folder, sizes = fresh("parallel", lines=12)
    shutil.copy(os.path.join(ROOT, "scripts", "cluster", "parallel.sh"), folder)
    result = run(["sh", "parallel.sh", "manifest.jsonl", folder], cwd=folder,
                 env={**os.environ, "CROPKIT": CROPKIT})
    code, summary = merge(folder, reports_in(folder))
    problems = outputs_ok(folder, sizes)
    check(result.returncode == 0 and code == 0 and "12 done" in summary and not problems,
          f"scripts/cluster/parallel.sh (GNU parallel, 4 shards): the merge is complete "
          f"({summary.strip().splitlines()[0]}; {problems[:3]} {result.stderr.strip()[-200:]})")

    # The Indexed Job's command, run here as its four pods would, with /data here.
    folder, sizes = fresh("kubernetes", lines=12)
    with open(os.path.join(ROOT, "scripts", "cluster", "indexed-job.yaml")) as f:
        yaml = f.read()
    command = re.search(r"- -c\n\s+- (.*)\n", yaml).group(1)
    command = command.replace("/data", folder)
    bin_folder = os.path.join(folder, "bin")
    os.makedirs(bin_folder)
    os.symlink(os.path.abspath(CROPKIT), os.path.join(bin_folder, "cropkit"))
    codes = [run(["sh", "-c", command], env={**os.environ, "JOB_COMPLETION_INDEX": str(index),
                                                "PATH": bin_folder + ":" + os.environ["PATH"]}).returncode
             for index in range(4)]
    code, summary = merge(folder, reports_in(folder))
    problems = outputs_ok(folder, sizes)
    check(codes == [0, 0, 0, 0] and code == 0 and "12 done" in summary and not problems,
          f"scripts/cluster/indexed-job.yaml's command for indexes 0-3: the merge is complete "
          f"({summary.strip().splitlines()[0]}; {problems[:3]})")


# A folder, a manifest, a reports folder and a photo named to break a shell
# that splits or evaluates them: spaces, both quotes, $(), backticks, a
# semicolon, a newline, a leading dash, GNU parallel's {}. Each command a
# shell would run makes a file named PWNED-<tag>-<n> where it runs.
def hostile_name(tag):
    return (f"-{tag} a b $(touch PWNED-{tag}-1) `touch PWNED-{tag}-2` 'q' \"dq\" "
            f";touch PWNED-{tag}-3;\nline2 {{}}")


def hostile_manifest(folder, name):
    """Four good lines (a photo with a hostile name among them) and four
    that reach outside the folder: ../, an absolute path, a link leading out,
    a hostile name climbing out."""
    sizes = manifest(folder, lines=4, name=name, prefix=hostile_name("photo") + " ")
    outside = os.path.join(WORK, "outside")
    os.makedirs(outside, exist_ok=True)
    os.symlink(outside, os.path.join(folder, "leads-out"))
    escapes = ["../escaped.png", os.path.join(outside, "absolute.png"), "leads-out/linked.png",
               "out/../../" + hostile_name("escape") + ".png"]
    with open(os.path.join(folder, name), "a") as f:
        for output in escapes:
            f.write(json.dumps({"input": sizes and manifest_input(folder, name),
                                "output": output,
                                "pixels": {"x": 0, "y": 0, "width": 64, "height": 64}}) + "\n")
    return sizes, outside


def manifest_input(folder, name):
    with open(os.path.join(folder, name)) as f:
        return json.loads(f.readline())["input"]


def injected():
    """Files a shell made by running a hostile name, anywhere under the work
    folder, the repository or the current folder."""
    found = []
    for top in {WORK, ROOT, os.getcwd()}:
        for dirpath, dirnames, names in os.walk(top):
            dirnames[:] = [d for d in dirnames if d not in (".git", ".build")]
            found += [os.path.join(dirpath, n) for n in names if re.fullmatch(r"PWNED-\w+-\d", n)]
    return sorted(found)


def check_hostile(label, folder, sizes, outside, code, summary, result):
    problems = outputs_ok(folder, sizes)
    escaped = [os.path.join(dirpath, n) for dirpath, _, names in os.walk(outside) for n in names]
    escaped += [os.path.join(WORK, n) for n in os.listdir(WORK) if n.endswith(".png")]
    check(not injected() and not escaped and not problems and "4 done" in summary and "4 failed" in summary,
          f"{label}: hostile names reach cropkit as they are (no shell ran them: {injected()}), the 4 good "
          f"lines are written and the 4 lines reaching outside the root fail, nothing written outside "
          f"({escaped[:2]}) ({summary.strip().splitlines()[0] if summary.strip() else result}; {problems[:3]})")


def scenario_hostile_parallel_and_kubernetes():
    folder = os.path.join(WORK, hostile_name("folder"))
    shutil.rmtree(folder, ignore_errors=True)
    name = hostile_name("manifest") + ".jsonl"
    sizes, outside = hostile_manifest(folder, name)
    shutil.copy(os.path.join(ROOT, "scripts", "cluster", "parallel.sh"), folder)
    result = run(["sh", "parallel.sh", name, folder], cwd=folder, env={**os.environ, "CROPKIT": CROPKIT})
    code, summary = merge_named(folder, name, reports_in(folder))
    check_hostile("scripts/cluster/parallel.sh", folder, sizes, outside, code, summary,
                  result.stderr.strip()[-300:])

    # The Indexed Job's command: /data is fixed, so what a user controls is
    # the manifest's lines.
    folder, _ = fresh("kubernetes-hostile", lines=0)
    sizes, outside = hostile_manifest(folder, "manifest.jsonl")
    with open(os.path.join(ROOT, "scripts", "cluster", "indexed-job.yaml")) as f:
        command = re.search(r"- -c\n\s+- (.*)\n", f.read()).group(1).replace("/data", folder)
    bin_folder = os.path.join(folder, "bin")
    os.makedirs(bin_folder)
    os.symlink(os.path.abspath(CROPKIT), os.path.join(bin_folder, "cropkit"))
    for index in range(4):
        run(["sh", "-c", command], env={**os.environ, "JOB_COMPLETION_INDEX": str(index),
                                        "PATH": bin_folder + ":" + os.environ["PATH"]})
    code, summary = merge(folder, reports_in(folder))
    check_hostile("indexed-job.yaml's command", folder, sizes, outside, code, summary, "")
    shutil.rmtree(outside, ignore_errors=True)


def scenario_hostile_array():
    folder = os.path.join(WORK, hostile_name("slurm"))
    shutil.rmtree(folder, ignore_errors=True)
    name = hostile_name("manifest") + ".jsonl"
    sizes, outside = hostile_manifest(folder, name)
    reports = hostile_name("reports")
    job = submit(folder, "0-3", 4, reports=reports, name=name)
    finished = wait(job)
    code, summary = merge_named(folder, name, reports_in(folder, reports))
    check_hostile("scripts/cluster/crop-array.sbatch on Slurm", folder, sizes, outside, code,
                  summary if finished else "the job did not finish", "")
    shutil.rmtree(outside, ignore_errors=True)


def merge_named(folder, name, reports):
    result = run([CROPKIT, "batch", "--merge", "--report", "merged.jsonl", "--", name, *reports], cwd=folder)
    return result.returncode, result.stderr


def timed(scenario):
    started = time.time()
    scenario()
    print(f"      ({time.time() - started:.1f} s)", flush=True)


def main():
    os.makedirs(WORK, exist_ok=True)
    timed(scenario_parallel_and_kubernetes)
    timed(scenario_hostile_parallel_and_kubernetes)
    if os.environ.get("SLURM_CONF"):
        for scenario in (scenario_array, scenario_hostile_array, scenario_killed_task,
                         scenario_overlapping_arrays, scenario_node_lost):
            timed(scenario)
    print(f"slurm-test: {len(failures)} failed" if failures else "slurm-test: all passed")
    sys.exit(1 if failures else 0)


main()
