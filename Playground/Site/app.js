// The CropKit playground's page script. Every number it shows comes from
// cropkit.wasm: CropGeometry and CropRecords, the package's own Swift
// source compiled to WebAssembly. This script only reads the inputs, draws,
// and reads photos' pixel sizes and EXIF orientation.
'use strict';

(() => {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let exports = null;

  // ---- The module -------------------------------------------------------

  /** Calls a `ck_*` function with one line of UTF-8 text; returns its answer. */
  function call(name, text) {
    const bytes = encoder.encode(text);
    const at = exports.ck_input(bytes.length);
    new Uint8Array(exports.memory.buffer, at, bytes.length).set(bytes);
    const length = exports[name](bytes.length);
    return decoder.decode(new Uint8Array(exports.memory.buffer, exports.ck_output(), length));
  }

  const imports = {
    env: {
      // Swift's Double(String) for numbers beyond the JSON reader's exact
      // fast path: JavaScript's Number() rounds correctly, as strtod does.
      parse_double: (at, length) =>
        Number(decoder.decode(new Uint8Array(exports.memory.buffer, at, length))),
    },
  };

  async function load() {
    const response = await fetch('cropkit.wasm');
    if (!response.ok) throw new Error(`cropkit.wasm: HTTP ${response.status}`);
    const bytes = await response.arrayBuffer();
    const { instance } = await WebAssembly.instantiate(bytes, imports);
    exports = instance.exports;
  }

  /** The page's hooks, for people and for tests. */
  const CropKit = {
    /** The JSON text `cropkit replay` writes for `line` (as line 1 of a file). */
    replay: (line) => call('ck_replay', line),
    /** Everything the page shows for a record line, as an object. */
    explain: (line) => JSON.parse(call('ck_explain', line)),
    /** The content modes, in the contract's order. */
    modes: () => JSON.parse(call('ck_modes', '')),
    /** Replays many lines at once: an array of `replay` answers. */
    replayAll: (lines) => lines.map((line) => call('ck_replay', line)),
    ready: null,
  };
  window.CropKit = CropKit;

  // ---- Inputs -----------------------------------------------------------

  const $ = (id) => document.getElementById(id);
  const number = (id) => Number($(id).value);
  const orientationNames = [
    '1 — upright', '2 — mirrored', '3 — upside down', '4 — upside down, mirrored',
    '5 — turned left, mirrored', '6 — turned right (portrait phone)', '7 — turned right, mirrored',
    '8 — turned left',
  ];

  /** The page's state as a failure record line (the contract's input). */
  function recordLine() {
    const record = {
      source: { width: number('sw'), height: number('sh') },
      viewport: { width: number('vw'), height: number('vh') },
      selection: { x: number('sx'), y: number('sy'), width: number('sel-w'), height: number('sel-h') },
      mode: $('mode').value,
    };
    if (number('scale') !== 1) record.imageScale = number('scale');
    if (number('zoom') !== 1 || number('ox') !== 0 || number('oy') !== 0) {
      record.zoom = { scale: number('zoom'), offset: { x: number('ox'), y: number('oy') } };
    }
    if (number('orientation') !== 1) record.orientation = number('orientation');
    if (number('angle') !== 0) record.angle = number('angle');
    return JSON.stringify(record);
  }

  /** Sets the inputs from a record the module has read back. */
  function setInputs(record) {
    const set = (id, value) => { if (value !== undefined) $(id).value = String(value); };
    set('sw', record.source?.width); set('sh', record.source?.height);
    set('vw', record.viewport?.width); set('vh', record.viewport?.height);
    set('sx', record.selection?.x); set('sy', record.selection?.y);
    set('sel-w', record.selection?.width); set('sel-h', record.selection?.height);
    set('mode', record.mode);
    set('scale', record.imageScale ?? 1);
    set('zoom', record.zoom?.scale ?? 1);
    set('ox', record.zoom?.offset?.x ?? 0); set('oy', record.zoom?.offset?.y ?? 0);
    set('orientation', record.orientation ?? 1);
    set('angle', record.angle ?? 0);
  }

  // ---- Photos -----------------------------------------------------------

  let photo = null; // { image, name, stored: [w, h], orientation, applied }

  /** The EXIF orientation in a TIFF block, or 1. */
  function tiffOrientation(view, start) {
    if (start + 8 > view.byteLength) return 1;
    const little = view.getUint16(start) === 0x4949;
    const u16 = (at) => view.getUint16(start + at, little);
    const u32 = (at) => view.getUint32(start + at, little);
    const ifd = u32(4);
    if (start + ifd + 2 > view.byteLength) return 1;
    const count = u16(ifd);
    for (let i = 0; i < count && start + ifd + 2 + 12 * i + 12 <= view.byteLength; i++) {
      const entry = ifd + 2 + 12 * i;
      if (u16(entry) === 0x0112) {
        const value = u16(entry + 8);
        return value >= 1 && value <= 8 ? value : 1;
      }
    }
    return 1;
  }

  /** Stored pixel size and EXIF orientation from a JPEG, PNG or WebP header. */
  function readHeader(buffer) {
    const view = new DataView(buffer);
    const bytes = new Uint8Array(buffer);
    const ascii = (at, n) => String.fromCharCode(...bytes.subarray(at, at + n));
    let size = null;
    let orientation = 1;
    if (view.byteLength > 4 && view.getUint16(0) === 0xffd8) {
      let at = 2;
      while (at + 4 <= view.byteLength && bytes[at] === 0xff) {
        const marker = bytes[at + 1];
        const length = view.getUint16(at + 2);
        if (marker === 0xe1 && ascii(at + 4, 4) === 'Exif') orientation = tiffOrientation(view, at + 10);
        if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker) && at + 9 <= view.byteLength) {
          size = [view.getUint16(at + 7), view.getUint16(at + 5)];
          break;
        }
        at += 2 + length;
      }
    } else if (ascii(1, 3) === 'PNG') {
      size = [view.getUint32(16), view.getUint32(20)];
      for (let at = 8; at + 8 <= view.byteLength;) {
        const length = view.getUint32(at);
        if (ascii(at + 4, 4) === 'eXIf') orientation = tiffOrientation(view, at + 8);
        if (ascii(at + 4, 4) === 'IDAT') break;
        at += 12 + length;
      }
    } else if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
      for (let at = 12; at + 8 <= view.byteLength;) {
        const kind = ascii(at, 4);
        const length = view.getUint32(at + 4, true);
        const data = at + 8;
        if (kind === 'VP8X') size = [1 + (view.getUint32(data + 4, true) & 0xffffff), 1 + (view.getUint32(data + 7, true) & 0xffffff)];
        if (kind === 'VP8 ' && !size) size = [view.getUint16(data + 6, true) & 0x3fff, view.getUint16(data + 8, true) & 0x3fff];
        if (kind === 'VP8L' && !size) {
          const bits = view.getUint32(data + 1, true);
          size = [1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff)];
        }
        if (kind === 'EXIF') orientation = tiffOrientation(view, ascii(data, 4) === 'Exif' ? data + 6 : data);
        at = data + length + (length & 1);
      }
    }
    return { size, orientation };
  }

  async function loadPhoto(file) {
    const buffer = await file.arrayBuffer();
    const header = readHeader(buffer);
    const image = new Image();
    const url = URL.createObjectURL(file);
    image.src = url;
    try {
      await image.decode();
    } catch {
      $('photo-note').textContent = `${file.name}: this browser cannot decode it`;
      return;
    }
    const natural = [image.naturalWidth, image.naturalHeight];
    const turned = header.orientation >= 5;
    // The stored size: from the header, or undone from the browser's
    // (which applies EXIF orientation to images, as CSS's default says).
    const stored = header.size ?? (turned ? [natural[1], natural[0]] : natural);
    const asSeen = turned ? [stored[1], stored[0]] : stored;
    // Whether the browser drew it as seen already (every current browser
    // does); if not, the page turns it.
    const applied = natural[0] === asSeen[0] && natural[1] === asSeen[1];
    photo = { image, name: file.name, stored, orientation: header.orientation, applied };
    $('sw').value = String(stored[0]);
    $('sh').value = String(stored[1]);
    $('orientation').value = String(header.orientation);
    $('photo-note').textContent =
      `${file.name}: ${stored[0]}×${stored[1]} stored pixels, orientation ${header.orientation}` +
      (header.size ? ' (read from its header and EXIF)' : ' (size from the browser; orientation 1 unless its EXIF says otherwise)');
    render();
  }

  /** Draws the photo as seen into the rect (x, y, w, h) of `context`. */
  function drawPhotoAsSeen(context, x, y, w, h) {
    const { image, stored, orientation, applied } = photo;
    const [sw, sh] = stored;
    const seen = orientation >= 5 ? [sh, sw] : [sw, sh];
    context.save();
    context.translate(x, y);
    context.scale(w / seen[0], h / seen[1]);
    if (applied || orientation === 1) {
      context.drawImage(image, 0, 0, seen[0], seen[1]);
    } else {
      const m = {
        2: [-1, 0, 0, 1, sw, 0], 3: [-1, 0, 0, -1, sw, sh], 4: [1, 0, 0, -1, 0, sh],
        5: [0, 1, 1, 0, 0, 0], 6: [0, 1, -1, 0, sh, 0], 7: [0, -1, -1, 0, sh, sw],
        8: [0, -1, 1, 0, 0, sw],
      }[orientation];
      context.transform(...m);
      context.drawImage(image, 0, 0, sw, sh);
    }
    context.restore();
  }

  /** A synthetic picture of the image as seen, so orientation shows without a photo. */
  function drawSynthetic(context, x, y, w, h) {
    context.save();
    context.beginPath();
    context.rect(x, y, w, h);
    context.clip();
    const gradient = context.createLinearGradient(x, y, x + w, y + h);
    gradient.addColorStop(0, '#9cc3e6');
    gradient.addColorStop(1, '#2f6db3');
    context.fillStyle = gradient;
    context.fillRect(x, y, w, h);
    context.strokeStyle = 'rgba(255,255,255,0.45)';
    context.lineWidth = 1;
    for (let i = 1; i < 8; i++) {
      context.beginPath();
      context.moveTo(x + (w * i) / 8, y);
      context.lineTo(x + (w * i) / 8, y + h);
      context.moveTo(x, y + (h * i) / 8);
      context.lineTo(x + w, y + (h * i) / 8);
      context.stroke();
    }
    context.fillStyle = '#fff';
    context.font = `${Math.max(9, Math.min(w, h) / 14)}px sans-serif`;
    context.textBaseline = 'top';
    context.fillText('↖ top left, as seen', x + 4, y + 4);
    context.restore();
  }

  // ---- Drawing ----------------------------------------------------------

  const rectText = (r) => (r ? `${r.x},${r.y},${r.width},${r.height}` : 'none');

  function place(id, rect) {
    const box = $(id);
    if (!rect) { box.hidden = true; return; }
    box.hidden = false;
    Object.assign(box.style, {
      left: `${rect.x}px`, top: `${rect.y}px`, width: `${rect.width}px`, height: `${rect.height}px`,
    });
  }

  /** Puts the view on whole CSS pixels, so a point of it is a whole pixel of the page. */
  function alignViewport() {
    const viewport = $('viewport');
    viewport.style.transform = '';
    const box = viewport.getBoundingClientRect();
    const dx = Math.round(box.left) - box.left;
    const dy = Math.round(box.top) - box.top;
    if (dx || dy) viewport.style.transform = `translate(${dx}px, ${dy}px)`;
  }

  function drawView(answer) {
    const [vw, vh] = [number('vw'), number('vh')];
    const viewport = $('viewport');
    const drawable = vw > 0 && vh > 0 && vw <= 4096 && vh <= 4096;
    viewport.style.width = `${drawable ? vw : 300}px`;
    viewport.style.height = `${drawable ? vh : 300}px`;
    const canvas = $('picture');
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round((drawable ? vw : 300) * ratio);
    canvas.height = Math.round((drawable ? vh : 300) * ratio);
    const context = canvas.getContext('2d');
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.fillStyle = '#c8c8c8';
    context.fillRect(0, 0, vw, vh);
    const display = answer.display;
    if (display && drawable) {
      context.save();
      const angle = number('angle');
      if (angle) {
        const cx = display.x + display.width / 2;
        const cy = display.y + display.height / 2;
        context.translate(cx, cy);
        context.rotate((angle * Math.PI) / 180);
        context.translate(-cx, -cy);
      }
      if (photo) drawPhotoAsSeen(context, display.x, display.y, display.width, display.height);
      else drawSynthetic(context, display.x, display.y, display.width, display.height);
      context.restore();
    }
    const selection = { x: number('sx'), y: number('sy'), width: number('sel-w'), height: number('sel-h') };
    place('selection-box', selection);
    place('clip-box', answer.clip);
    place('pixels-box', answer.pixelsInView);
    alignViewport();
  }

  function drawPreview(result) {
    const canvas = $('preview');
    const context = canvas.getContext('2d');
    const note = $('preview-note');
    if (!photo || !result) {
      canvas.width = 0;
      canvas.height = 0;
      note.textContent = photo ? 'No pixels to cut.' : 'Load a photo to see the crop cut from it.';
      return;
    }
    const out = result.outputSize ?? { width: result.width, height: result.height };
    const shrink = Math.min(1, 360 / Math.max(out.width, out.height));
    canvas.width = Math.max(1, Math.round(out.width * shrink));
    canvas.height = Math.max(1, Math.round(out.height * shrink));
    const [sw, sh] = photo.stored;
    const seen = photo.orientation >= 5 ? [sh, sw] : [sw, sh];
    context.save();
    context.scale(canvas.width / result.width, canvas.height / result.height);
    context.translate(-result.x, -result.y);
    const angle = number('angle');
    if (angle) {
      // The turned frame: a point p shows the image at R(−θ)(p − c) + c.
      context.translate(seen[0] / 2, seen[1] / 2);
      context.rotate((angle * Math.PI) / 180);
      context.translate(-seen[0] / 2, -seen[1] / 2);
    }
    drawPhotoAsSeen(context, 0, 0, seen[0], seen[1]);
    context.restore();
    note.textContent = `${out.width}×${out.height} pixels` + (shrink < 1 ? ', shown smaller' : '') +
      (angle ? '; the browser resamples this preview, cropkit crop --angle gives the exact one' : '');
  }

  // ---- The answer -------------------------------------------------------

  function render() {
    if (!exports) return;
    const line = recordLine();
    const answer = CropKit.explain(line);
    if (answer.error) {
      $('pixel-rect').textContent = `invalid: ${answer.error}`;
      $('status').textContent = answer.error;
      return;
    }
    $('status').textContent = 'Computed by cropkit.wasm (CropGeometry in Embedded Swift).';
    const replayed = JSON.parse(answer.replay);
    const result = replayed.result;
    $('pixel-rect').textContent = result ? rectText(result)
      : `rejected: ${replayed.reason.code}`;
    $('pixel-rect').title = result ? '' : replayed.reason.message;
    $('stored-rect').textContent = result
      ? (result.stored ? rectText(result.stored) : (replayed.angle ? 'see the quad in the record' : rectText(result)))
      : replayed.reason.message;
    $('display-rect').textContent = rectText(answer.display);
    $('padding').textContent = answer.padding
      ? `left ${answer.padding.left}, top ${answer.padding.top}, right ${answer.padding.right}, bottom ${answer.padding.bottom}`
      : 'none';
    $('clip').textContent = rectText(answer.clip);
    $('article').textContent = answer.article ? rectText(answer.article)
      : (answer.articleNote ?? 'nil: no pixels');
    const differences = $('differences');
    differences.replaceChildren(...(answer.differences ?? []).map((text) => {
      const item = document.createElement('li');
      item.textContent = text;
      return item;
    }));
    if (answer.differences && answer.differences.length === 0) {
      const item = document.createElement('li');
      item.textContent = 'agrees with the contract here';
      differences.append(item);
    }
    $('record').textContent = answer.record;
    showDiagram(answer.svg);
    drawView(answer);
    drawPreview(result);
  }

  // The diagram (an SVG made by CropDiagram, which escapes its text) is
  // shown as an image: a script or handler in an SVG image never runs, so
  // the page holds no markup made from data, whatever reached the record.
  let diagramURL = null;
  function showDiagram(svg) {
    if (diagramURL) URL.revokeObjectURL(diagramURL);
    diagramURL = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    const image = document.createElement('img');
    image.alt = 'The selection, the image and the pixels it covers, drawn to scale';
    image.src = diagramURL;
    image.dataset.testid = 'diagram';
    $('diagram').replaceChildren(image);
  }

  function showPasted() {
    const line = $('paste').value.trim();
    if (!line) return;
    const replayed = JSON.parse(CropKit.replay(line));
    if (replayed.error) {
      $('verdict').textContent = `Not a record: ${replayed.error}`;
      $('replayed').textContent = '';
      return;
    }
    setInputs(replayed);
    $('verdict').textContent =
      replayed.check === 'passed' ? 'Its "expected" holds: the contract gives the same answer.'
        : replayed.check === 'failed' ? `Its "expected" does not hold: ${replayed.mismatches.join('; ')}`
          : 'It has no "expected": replayed, not checked.';
    $('replayed').textContent = CropKit.replay(line);
    render();
  }

  // ---- Dragging and keys --------------------------------------------------

  function setSelection(x, y, width, height) {
    $('sx').value = String(x);
    $('sy').value = String(y);
    $('sel-w').value = String(width);
    $('sel-h').value = String(height);
    render();
  }

  function wire() {
    const viewport = $('viewport');
    let start = null;
    const point = (event) => {
      const box = viewport.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    };
    viewport.addEventListener('pointerdown', (event) => {
      viewport.setPointerCapture(event.pointerId);
      viewport.focus();
      start = point(event);
      event.preventDefault();
    });
    viewport.addEventListener('pointermove', (event) => {
      if (!start) return;
      const p = point(event);
      const [x0, x1] = [Math.min(start.x, p.x), Math.max(start.x, p.x)];
      const [y0, y1] = [Math.min(start.y, p.y), Math.max(start.y, p.y)];
      if (x1 > x0 && y1 > y0) setSelection(x0, y0, x1 - x0, y1 - y0);
    });
    const end = () => { start = null; };
    viewport.addEventListener('pointerup', end);
    viewport.addEventListener('pointercancel', end);
    viewport.addEventListener('keydown', (event) => {
      const step = event.shiftKey ? 10 : 1;
      const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      if (event.altKey) {
        setSelection(number('sx'), number('sy'), Math.max(1, number('sel-w') + move[0]), Math.max(1, number('sel-h') + move[1]));
      } else {
        setSelection(number('sx') + move[0], number('sy') + move[1], number('sel-w'), number('sel-h'));
      }
    });
    for (const input of document.querySelectorAll('.controls input:not([type=file]), .controls select')) {
      input.addEventListener('input', render);
    }
    $('photo').addEventListener('change', (event) => {
      const file = event.target.files[0];
      if (file) loadPhoto(file);
    });
    $('copy').addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText($('record').textContent);
        $('copy').textContent = 'Copied';
      } catch {
        getSelection().selectAllChildren($('record'));
        $('copy').textContent = 'Selected: copy it with your keyboard';
      }
      setTimeout(() => { $('copy').textContent = 'Copy the record'; }, 2000);
    });
    $('draw').addEventListener('click', showPasted);
    window.addEventListener('resize', alignViewport);
  }

  CropKit.ready = (async () => {
    try {
      await load();
    } catch (error) {
      $('status').textContent = `Could not load cropkit.wasm (${error.message}). Serve this folder over HTTP: python3 -m http.server`;
      throw error;
    }
    $('mode').replaceChildren(...CropKit.modes().map((mode) => new Option(mode, mode)));
    $('orientation').replaceChildren(...orientationNames.map((name, i) => new Option(name, String(i + 1))));
    wire();
    const given = new URLSearchParams(location.search).get('record');
    if (given) {
      $('paste').value = given;
      showPasted();
    } else {
      render();
    }
  })();
})();
