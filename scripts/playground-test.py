"""The playground in a real browser: headless Chromium driven by Debian's
chromium-driver through Selenium (from PyPI, in CropKit's own virtual
environment). Run by scripts/playground-test, which builds the page and
the command-line tool first; this file is its checks.

  python playground-test.py SITE CROPKIT TESTDATA OUT

SITE is .build/playground, CROPKIT the cropkit binary the page's answers
are compared with, TESTDATA the corpora (or '' when absent: the photo
check is then skipped and says so), OUT a folder for screenshots.
"""

import functools
import http.server
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from PIL import Image
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

SITE, CROPKIT, TESTDATA, OUT = sys.argv[1:5]
RECORDS = int(os.environ.get("CROPKIT_PLAYGROUND_RECORDS", "100000"))
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


def serve(folder):
    """A static server on a free port of 127.0.0.1, as python3 -m http.server."""
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def browser(width, height):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options,
                            service=webdriver.ChromeService("/usr/bin/chromedriver"))


def open_page(driver, url):
    driver.get(url)
    driver.set_script_timeout(120)
    driver.execute_async_script(
        "const done = arguments[0]; window.CropKit.ready.then(() => done(true), e => done(String(e)));")


def text(driver, testid):
    return driver.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]').text


def drag(driver, start, end):
    """A pointer drag inside the viewport, in its points (CSS pixels)."""
    view = driver.find_element(By.CSS_SELECTOR, '[data-testid="viewport"]')
    size = view.size
    chain = ActionChains(driver, duration=50)
    chain.move_to_element_with_offset(view, start[0] - size["width"] / 2, start[1] - size["height"] / 2)
    chain.click_and_hold()
    for k in (0.25, 0.5, 0.75, 1.0):
        x = start[0] + (end[0] - start[0]) * k
        y = start[1] + (end[1] - start[1]) * k
        chain.move_to_element_with_offset(view, x - size["width"] / 2, y - size["height"] / 2)
    chain.release().perform()


def native(args, stdin=None):
    return subprocess.run([CROPKIT, *args], input=stdin, capture_output=True, text=True).stdout


def records():
    """Generated records: every content mode, zoom, every orientation; a third
    of them turned; and lines that are not records."""
    lines = native(["cases", "--count", str(RECORDS), "--seed", "28", "--modes", "all",
                    "--orientations", "all", "--zoom"]).splitlines()
    rng = random.Random(28)
    out = []
    for i, line in enumerate(lines):
        if i % 3 == 1:
            record = json.loads(line)
            record["angle"] = rng.choice([round(rng.uniform(-45, 45), 2), rng.uniform(-180, 180),
                                          90, -0.5, 1e-9])
            line = json.dumps(record, separators=(",", ":"))
        out.append(line)
    out += [
        "not json", "{}", "[1,2]", '{"source":{"width":4000.5,"height":3000}}',
        '{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},'
        '"selection":{"x":75,"y":75,"width":150,"height":150},"mode":"sideways"}',
        '{"source":{"width":4000,"height":3000},"viewport":{"width":1e300,"height":300},'
        '"selection":{"x":-1e300,"y":75,"width":1e300,"height":150},"mode":"aspectFit"}',
    ]
    return out


def compare_replays(driver):
    lines = records()
    with open(os.path.join(OUT, "records.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    want = subprocess.run([CROPKIT, "replay", os.path.join(OUT, "records.jsonl")],
                          capture_output=True, text=True).stdout.splitlines()
    got = []
    started = time.time()
    for start in range(0, len(lines), 5000):
        got += driver.execute_script("return window.CropKit.replayAll(arguments[0]);",
                                     lines[start:start + 5000])
    seconds = time.time() - started
    differ = []
    for number, (line, page, cli) in enumerate(zip(lines, got, want), start=1):
        # The page replays each line as line 1 of a file.
        cli = cli.replace(f'{{"line":{number},', '{"line":1,', 1)
        if page != cli:
            differ.append((number, line, page, cli))
    turned = sum('"angle"' in line for line in lines)
    check(len(got) == len(want) == len(lines) and not differ,
          f"the page's replay equals cropkit replay on {len(lines)} records "
          f"({turned} turned, every mode, zoom and orientation) in {seconds:.1f} s"
          + (f"; {len(differ)} differ, the first: {differ[0]}" if differ else ""))


def check_drag(driver):
    drag(driver, (20, 30), (60, 90))
    moved = text(driver, "pixel-rect")
    drag(driver, (75, 75), (225, 225))
    check(text(driver, "pixel-rect") == "1000,500,2000,2000" and moved != "1000,500,2000,2000",
          f"a drag from (75,75) to (225,225) in the article's view shows 1000,500,2000,2000 "
          f"(it showed {text(driver, 'pixel-rect')}; the drag before it {moved})")
    view = driver.find_element(By.CSS_SELECTOR, '[data-testid="viewport"]')
    view.send_keys(Keys.ARROW_RIGHT)
    record = json.loads(driver.find_element(By.ID, "record").text)
    check(record["selection"]["x"] == 76 and record["expected"]["x"] != 1000,
          f"the right arrow nudges the selection one point: {record['selection']}, {record['expected']}")
    # The record the page shows replays to its own expected on the command line.
    replay = native(["replay", "-"], stdin=driver.find_element(By.ID, "record").text + "\n")
    check('"check":"passed"' in replay, f"the page's record passes cropkit replay: {replay.strip()}")


def check_touch(driver):
    """A drag with a finger (touch pointer events), as on a phone."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    from selenium.webdriver.common.actions import interaction
    view = driver.find_element(By.CSS_SELECTOR, '[data-testid="viewport"]')
    box = driver.execute_script(
        "const b = arguments[0].getBoundingClientRect(); return [b.left, b.top];", view)
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger)
    actions.pointer_action.move_to_location(round(box[0]) + 75, round(box[1]) + 75)
    actions.pointer_action.pointer_down()
    for k in (0.5, 1.0):
        actions.pointer_action.move_to_location(round(box[0]) + 75 + 150 * k, round(box[1]) + 75 + 150 * k)
    actions.pointer_action.pointer_up()
    drag(driver, (10, 10), (50, 50))
    actions.perform()
    check(text(driver, "pixel-rect") == "1000,500,2000,2000",
          f"a touch drag from (75,75) to (225,225) shows 1000,500,2000,2000: {text(driver, 'pixel-rect')}")


def check_article(driver):
    """The demo's case where the article's Double recipe adds a pixel."""
    line = ('{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},'
            '"selection":{"x":0.15,"y":75,"width":150,"height":150},"mode":"aspectFit"}')
    box = driver.find_element(By.ID, "paste")
    box.clear()
    box.send_keys(line)
    driver.find_element(By.ID, "draw").click()
    shown = driver.find_element(By.ID, "differences").text
    article = driver.find_element(By.ID, "article").text
    cli = native(["map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "0.15,75,150,150"])
    check("the recipe says" in shown and article != text(driver, "pixel-rect")
          and text(driver, "pixel-rect") in cli,
          f"where the article's recipe is wrong the page says which edge: recipe {article}, "
          f"contract {text(driver, 'pixel-rect')}: {shown!r}")


def check_paste(driver):
    for expected, verdict in (("1000,500,2000,2000", "holds"), ("1000,500,2000,2001", "does not hold")):
        x, y, w, h = expected.split(",")
        line = ('{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},'
                '"selection":{"x":75,"y":75,"width":150,"height":150},"mode":"aspectFit",'
                f'"expected":{{"x":{x},"y":{y},"width":{w},"height":{h}}}}}')
        box = driver.find_element(By.ID, "paste")
        box.clear()
        box.send_keys(line)
        driver.find_element(By.ID, "draw").click()
        shown = text(driver, "verdict")
        check(verdict in shown and text(driver, "pixel-rect") == "1000,500,2000,2000",
              f"a pasted record expecting {expected} is drawn and its expected {verdict}: {shown!r}")


def check_photo(driver):
    photo = os.path.join(TESTDATA, "exif", "generated", "testorig_orientation6.jpg")
    if not TESTDATA or not os.path.exists(photo):
        print("skip  loading a photo: the corpora are not here (CROPKIT_TESTDATA)")
        return
    info = native(["info", photo, "--json"])
    stored = json.loads(info) if info.strip().startswith("{") else {}
    driver.find_element(By.ID, "photo").send_keys(photo)
    for _ in range(100):
        if "stored pixels" in driver.find_element(By.ID, "photo-note").text:
            break
        time.sleep(0.1)
    page_source = (int(driver.find_element(By.ID, "sw").get_attribute("value")),
                   int(driver.find_element(By.ID, "sh").get_attribute("value")))
    orientation = int(driver.find_element(By.ID, "orientation").get_attribute("value"))
    want = (stored.get("stored", {}).get("width"), stored.get("stored", {}).get("height"),
            stored.get("orientation"))
    check((*page_source, orientation) == want,
          f"a loaded JPEG's stored size and EXIF orientation are read in the page: "
          f"{(*page_source, orientation)}, cropkit info says {want}")
    drag(driver, (40, 60), (130, 200))
    record = driver.find_element(By.ID, "record").text
    rect = [int(v) for v in text(driver, "pixel-rect").split(",")]
    replay = native(["replay", "-"], stdin=record + "\n")
    check('"check":"passed"' in replay and json.loads(record)["orientation"] == 6,
          f"a drag over the photo gives {rect}, and cropkit replay agrees: {replay.strip()[:160]}")
    # The preview is the crop of the photo as seen: Pillow's decode, turned
    # by its EXIF orientation, cut at the same rect.
    data = driver.execute_script(
        "const c = document.getElementById('preview');"
        "return [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)];")
    width, height, pixels = data
    preview = Image.frombytes("RGBA", (width, height), bytes(pixels)).convert("RGB")
    from PIL import ImageOps
    seen = ImageOps.exif_transpose(Image.open(photo)).convert("RGB")
    crop = seen.crop((rect[0], rect[1], rect[0] + rect[2], rect[1] + rect[3])).resize((width, height))
    difference = sum(abs(a - b) for a, b in zip(preview.tobytes(), crop.tobytes()))
    mean = difference / (width * height * 3)
    check((width, height) == (rect[2], rect[3]) and mean < 6,
          f"the crop preview ({width}x{height}) is that rect of the photo as seen: "
          f"mean difference {mean:.2f} levels from Pillow's")


# Strings that become markup or script if a page puts data into HTML: each
# sets window.__pwned (or adds an element) when it runs.
HOSTILE = [
    '"><img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=1</script>",
    "<svg onload=window.__pwned=1></svg>",
    "javascript:window.__pwned=1",
    "'; window.__pwned=1; '",
    "</title><img src=x onerror=window.__pwned=1>",
    "\u0000\u202e\u001b[2J",
    "NaN", "-Infinity", "1e309", "",
]

# What the page holds of its own: every element with an inline handler, a
# script, an img other than the diagram, an iframe or object; and the flag.
INJECTED = """
const found = [];
for (const element of document.querySelectorAll('*')) {
  for (const attribute of element.attributes) {
    if (attribute.name.startsWith('on')) found.push(`${element.tagName} ${attribute.name}`);
  }
}
for (const element of document.querySelectorAll('script, iframe, object, embed')) {
  if (!(element.tagName === 'SCRIPT' && element.src.endsWith('/app.js'))) found.push(element.outerHTML.slice(0, 80));
}
for (const image of document.querySelectorAll('img')) {
  if (image.dataset.testid !== 'diagram') found.push(image.outerHTML.slice(0, 80));
}
if (window.__pwned !== undefined) found.push('window.__pwned set');
return found;
"""


def check_hostile(driver):
    """Hostile strings in every field that reaches the page: each form field
    (typed, and set by script as a tampered page would), a select given an
    option of its own, pasted records with a hostile value in every member
    and in keys, ?record= and a photo's file name. Nothing may run or become
    markup, and the page keeps answering."""
    fields = driver.execute_script(
        "return [...document.querySelectorAll('input:not([type=file]), select, textarea')].map(e => e.id);")
    runs = 0
    for field in fields:
        for payload in HOSTILE:
            driver.execute_script("""
                const [id, value] = arguments;
                const element = document.getElementById(id);
                if (element.tagName === 'SELECT') {
                  const option = document.createElement('option');
                  option.value = value; option.textContent = 'hostile';
                  element.append(option);
                }
                element.value = value;
                element.dispatchEvent(new Event('input', { bubbles: true }));
                element.dispatchEvent(new Event('change', { bubbles: true }));
            """, field, payload)
            runs += 1
        box = driver.find_element(By.ID, field)
        if box.tag_name in ("input", "textarea"):
            box.clear()
            box.send_keys(HOSTILE[0])
            runs += 1
    found = driver.execute_script(INJECTED)
    check(not found, f"hostile strings in {len(fields)} form fields ({runs} settings): nothing injected {found[:3]}")
    base = {"source": {"width": 4000, "height": 3000}, "viewport": {"width": 300, "height": 300},
            "selection": {"x": 75, "y": 75, "width": 150, "height": 150}, "mode": "aspectFit",
            "expected": {"x": 1000, "y": 500, "width": 2000, "height": 2000}}
    lines = []
    for payload in HOSTILE:
        for path in (("mode",), ("source", "width"), ("viewport",), ("selection", "x"), ("expected", "x"),
                     ("orientation",), ("angle",), ("category",), ("zoom",), ("imageScale",)):
            record = json.loads(json.dumps(base))
            target = record
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = payload
            lines.append(json.dumps(record))
        record = json.loads(json.dumps(base))
        record[payload] = payload
        lines.append(json.dumps(record))
    lines += [payload for payload in HOSTILE]
    for line in lines:
        box = driver.find_element(By.ID, "paste")
        driver.execute_script("arguments[0].value = arguments[1];", box, line)
        driver.find_element(By.ID, "draw").click()
    found = driver.execute_script(INJECTED)
    check(not found, f"{len(lines)} pasted records with hostile values and keys: nothing injected {found[:3]}")
    for payload in HOSTILE[:6]:
        record = json.loads(json.dumps(base))
        record["mode"] = payload
        record["category"] = payload
        open_page(driver, driver.current_url.split("?")[0] + "?record=" + urllib.parse.quote(json.dumps(record)))
        open_page(driver, driver.current_url.split("?")[0] + "?record=" + urllib.parse.quote(payload))
    found = driver.execute_script(INJECTED)
    check(not found, f"hostile ?record= values: nothing injected {found[:3]}")
    photo = os.path.join(TESTDATA, "exif", "generated", "testorig_orientation6.jpg") if TESTDATA else ""
    if photo and os.path.exists(photo):
        folder = tempfile.mkdtemp()
        named = os.path.join(folder, '"><img src=x onerror=window.__pwned=1>.jpg')
        shutil.copyfile(photo, named)
        driver.find_element(By.ID, "photo").send_keys(named)
        time.sleep(1)
        note = driver.find_element(By.ID, "photo-note").text
        found = driver.execute_script(INJECTED)
        check(not found and "onerror" in note,
              f"a photo named as markup shows its name as text: {note[:60]!r}, nothing injected {found[:3]}")
        shutil.rmtree(folder)
    # The page still answers.
    open_page(driver, driver.current_url.split("?")[0])
    check(text(driver, "pixel-rect") == "1000,500,2000,2000",
          f"after the hostile input the page answers: {text(driver, 'pixel-rect')}")


def screenshot(driver, name, width):
    driver.set_window_size(width, 1600)
    time.sleep(0.3)
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
    png = driver.get_screenshot_as_png()
    path = os.path.join(OUT, f"playground-{name}.png")
    with open(path, "wb") as f:
        f.write(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    inked = sum(count for count, (r, g, b) in colours if min(r, g, b) < 200)
    share = inked / (image.width * image.height)
    check(len(colours) > 16 and share > 0.02 and overflow <= 0,
          f"{path}: {image.width}x{image.height}, {len(colours)} colours, {share:.1%} inked, "
          f"{overflow} px wider than the window")


def main():
    os.makedirs(OUT, exist_ok=True)
    server = serve(SITE)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    driver = browser(1280, 1600)
    try:
        open_page(driver, url)
        check(text(driver, "pixel-rect") == "1000,500,2000,2000",
              f"the page opens on the article's scenario: {text(driver, 'pixel-rect')}")
        check_drag(driver)
        check_touch(driver)
        check_paste(driver)
        check_article(driver)
        check_hostile(driver)
        open_page(driver, url)
        compare_replays(driver)
        page = driver.execute_script(
            "return window.CropKit.replay(arguments[0]);",
            '{"source":{"width":1099511627776,"height":3000},"viewport":{"width":300,"height":300},'
            '"selection":{"x":75,"y":75,"width":150,"height":150},"mode":"aspectFit"}')
        check('"code":"sourceTooLarge"' in page and "2^29" in page,
              "a source past 2^29 pixels a side is refused by name in the page (Int has 32 bits in wasm32)")
        open_page(driver, url)
        check_photo(driver)
        open_page(driver, url + "?record=" + "%7B%22source%22%3A%7B%22width%22%3A4000%2C%22height%22%3A3000%7D%2C%22viewport%22%3A%7B%22width%22%3A300%2C%22height%22%3A300%7D%2C%22selection%22%3A%7B%22x%22%3A75%2C%22y%22%3A75%2C%22width%22%3A150%2C%22height%22%3A150%7D%2C%22mode%22%3A%22aspectFit%22%2C%22orientation%22%3A6%7D")
        check(text(driver, "pixel-rect") == "500,1000,2000,2000",
              f"?record= opens a record: orientation 6 shows {text(driver, 'pixel-rect')}")
        screenshot(driver, "desktop", 1280)
        screenshot(driver, "phone", 390)
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, f"no console errors: {errors[:3]}")
    finally:
        driver.quit()
        server.shutdown()
    print(f"playground-test: {len(failures)} failed" if failures else "playground-test: all passed")
    sys.exit(1 if failures else 0)


main()
