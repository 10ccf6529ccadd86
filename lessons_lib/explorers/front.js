// The explorers' picture in the browser: the front end of lessons_lib's gradient explorer
// and step-size explorer (anywidget). `picture_style.kind` says which one: the drawing is
// shared, only the words differ (DESCRIBE below).
//
// Plain JavaScript, no build step. Each time the curves change, the kernel sends the
// picture without its moving parts (a PNG), the sampled curves and where each panel sits
// (picture.py). A point move is then drawn here, from those samples, in the same
// frame as the slider's change: the vertical line, the three markers, the readout and the
// picture's text alternative. Nothing waits for the kernel; it still learns the new point
// through the slider's own model. Range, scale and parameter changes need the kernel (only
// it can run the learner's Function): until their curves arrive the picture says "updating…".
// Each slider's number box is linked to it here too, in the browser, so a typed x is drawn
// at once, and the box shows the slider's value without the float noise of its steps.
// The picture is as wide as its container lets it be (a projector's 1280x720 window gives
// it about 700 px): the page tells the kernel the width and the screen's devicePixelRatio,
// and the kernel draws again at that size, its fonts fixed in CSS pixels. Until it has,
// the picture it drew before is shown stretched.

// The kernel's picture_style (`style` below) says the rest: the layout of `samples`
// (style.rows, x first), what the readout shows at the point (style.keys), and whether x
// steps on a log scale.
const REFERENCE = "IPY_MODEL_"; // how ipywidgets writes a reference to another widget
const SETTLE_MS = 150; // a resize asks the kernel for a new picture once it rests this long

/** A number as Python's f"{v:.4g}" writes it; "—" when unknown. Ties round away from zero. */
export function formatNumber(v) {
  if (v === null || Number.isNaN(v)) return "—";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa, power] = v.toExponential(3).split("e");
  const exponent = Number(power);
  if (exponent < -4 || exponent >= 4) {
    const sign = exponent < 0 ? "-" : "+";
    return `${stripZeros(mantissa)}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return stripZeros(v.toFixed(3 - exponent));
}

function stripZeros(text) {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** The kernel's float64 rows, named by `rows` (style.rows), as arrays; null if none. */
export function unpackSamples(view, rows) {
  if (!view || view.byteLength === 0) return null;
  // A copy: a view into a larger message buffer need not be aligned for Float64Array.
  // numpy wrote little-endian numbers, which is what every browser's platform reads.
  const values = new Float64Array(
    view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength),
  );
  const n = values.length / rows.length;
  return Object.fromEntries(rows.map((row, i) => [row, values.subarray(i * n, (i + 1) * n)]));
}

/**
 * The sample at x, or -1 between samples: the same rule as Curves.index_of in Python.
 * Evenly spaced samples; on a log axis (`log`) evenly spaced in log10, as a log slider steps.
 */
export function sampleIndex(xs, x, tolerance, log = false) {
  const n = xs.length;
  if (n < 2 || (log && !(x > 0))) return -1;
  const t = log ? Math.log10 : (v) => v;
  const first = t(xs[0]);
  const width = t(xs[n - 1]) - first;
  const index = Math.round(((t(x) - first) / width) * (n - 1));
  const close =
    index >= 0 && index < n && Math.abs(t(xs[index]) - t(x)) <= tolerance * Math.abs(width);
  return close ? index : -1;
}

/**
 * The picture's size in CSS pixels for a container `available` px wide: as wide as it
 * lets it be, from style.min_width to style.max_width, at style.aspect but style.min_height
 * high at least. Whole pixels, so a canvas holds exactly width x devicePixelRatio pixels.
 */
export function pictureSize(available, style) {
  const width = Math.max(style.min_width, Math.min(style.max_width, Math.floor(available)));
  return { width, height: Math.max(style.min_height, Math.round(width / style.aspect)) };
}

/** The pixels of a picture of `size` CSS pixels on a screen of `ratio` device pixels per px. */
export function backingSize(size, ratio) {
  return [Math.round(size.width * ratio), Math.round(size.height * ratio)];
}

/** What the picture shows at x: from a sample, from the kernel's exact values, or unknown. */
export function pointAt(x, samples, exact, meta, style) {
  const { keys } = style;
  const index = samples ? sampleIndex(samples.x, x, style.on_grid, style.xscale === "log") : -1;
  if (index >= 0) {
    const differ = samples.differ ? samples.differ[index] === 1 : false;
    const at = { x: samples.x[index], differ, known: true };
    for (const key of keys) at[key] = samples[key][index];
    return at;
  }
  if (exact && exact.revision === meta.revision && exact.x === x) {
    const at = { x, differ: exact.differ ?? false, known: true };
    for (const key of keys) at[key] = exact[key] === null ? NaN : exact[key];
    return at;
  }
  const at = { x, differ: false, known: false };
  for (const key of keys) at[key] = NaN;
  return at;
}

/** The readout's parts and the picture's text alternative for one point. */
export function describe(at, style, meta) {
  return DESCRIBE[style.kind](at, style, meta);
}

/** The gradient explorer's words: x, forward, backward and the truth, and whether they agree. */
function describeGradient(at, style, meta) {
  const { labels } = style;
  const values = style.keys.map((key) => [key, `${labels[key]} = ${formatNumber(at[key])}`]);
  let verdict;
  if (!at.known) {
    verdict = "asking the kernel for the values at this exact x";
  } else if (Number.isNaN(at.custom) || Number.isNaN(at.true)) {
    verdict = `${labels.custom} and the ${labels.true} cannot be compared here`;
  } else {
    const word = at.differ ? "disagree" : "agree";
    verdict = `${labels.custom} and the ${labels.true} ${word} here`;
  }
  const x = `x = ${formatNumber(at.x)}`;
  const scale = `grad_out = ${formatNumber(meta.scale)}`;
  const [low, high] = meta.range.map(formatNumber);
  const alt =
    `Gradient explorer for ${style.name} over x from ${low} to ${high}: forward on top, ` +
    `backward against the ${labels.true} below. At ${x}, ${scale}: ` +
    `${values.map(([, text]) => text).join(", ")}; ${verdict}.`;
  return { parts: [["x", x], ["scale", scale], ...values], verdict, alt };
}

/**
 * Where h sits against a dtype's marked step, in words: "smaller than its best step, 0.0078".
 * The mark is the model's optimum, or the rule of thumb eps^(1/3) where the model has none.
 */
function against(h, best, fromModel) {
  const near = Math.abs(Math.log10(h / best)) < 0.125; // within half a slider stop
  const where = near ? "at" : h < best ? "smaller than" : "larger than";
  const mark = fromModel ? "its best step" : "its rule-of-thumb step";
  return `${where} ${mark}, ${formatNumber(best)}`;
}

/** The step-size explorer's words: h, each dtype's error, and where h sits against its best. */
function describeSteps(at, style, meta) {
  const { labels, keys } = style;
  const h = `h = ${formatNumber(at.x)}`;
  const values = keys.map((key) => [key, `${labels[key]} off by ${formatNumber(at[key])}`]);
  let verdict;
  if (!at.known) {
    verdict = "asking the kernel for the errors at this exact h";
  } else if (keys.every((key) => meta.best[key] === undefined)) {
    verdict = "nothing was measured: see the message above the sliders";
  } else {
    verdict = keys
      .map((key) => `${labels[key]}: h is ${against(at.x, meta.best[key], meta.from_model[key])}`)
      .join("; ");
  }
  const alt =
    `Step-size explorer for ${style.name} at x = ${formatNumber(meta.point)}: the error of ` +
    `a central difference against the step h, both on log scales, in ${keys.map((k) => labels[k]).join(" and ")}. ` +
    `At ${h}: ${values.map(([, text]) => text).join(", ")}; ${verdict}.`;
  return { parts: [["x", h], ...values], verdict, alt };
}

const DESCRIBE = { gradient: describeGradient, steps: describeSteps };

/** Whether two lists of slider values are the same (numbers compared to rounding). */
export function sameValues(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((value, i) => sameValues(value, b[i]))
    );
  }
  return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** A slider's value as its box shows it: 12 digits, so 0.30000000000000004 reads 0.3. */
export function tidy(value) {
  return Number(value.toPrecision(12));
}

function nearlyEqual(a, b) {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function change(model, value) {
  model.set("value", value);
  model.save_changes();
}

/** Keep a slider and its number box(es) together; returns a function that unlinks them. */
function linkBoxes(slider, boxes) {
  const ranged = boxes.length === 2; // a range slider: a box for each end
  const valueOf = (i) => (ranged ? slider.get("value")[i] : slider.get("value"));
  const follow = () =>
    boxes.forEach((box, i) => {
      const shown = tidy(valueOf(i));
      if (box.get("value") !== shown) change(box, shown);
    });
  const typed = boxes.map((box, i) => () => {
    const value = box.get("value");
    if (nearlyEqual(value, valueOf(i))) return; // the box only followed the slider
    if (!ranged) return change(slider, value);
    const ends = [...slider.get("value")];
    ends[i] = value;
    if (ends[0] > ends[1]) {
      // Past the other end: refused. Put the box back once its own change has settled.
      return queueMicrotask(() => change(box, tidy(valueOf(i))));
    }
    change(slider, ends);
  });
  slider.on("change:value", follow);
  boxes.forEach((box, i) => box.on("change:value", typed[i]));
  follow();
  return () => {
    slider.off("change:value", follow);
    boxes.forEach((box, i) => box.off("change:value", typed[i]));
  };
}

function modelOf(model, reference) {
  return model.widget_manager.get_model(reference.slice(REFERENCE.length));
}

/** Once per explorer, views or not: link every slider to its number box(es). */
async function initialize({ model }) {
  const unlinks = [];
  for (const references of model.get("controls").boxes) {
    const [slider, ...boxes] = await Promise.all(references.map((ref) => modelOf(model, ref)));
    unlinks.push(linkBoxes(slider, boxes));
  }
  return () => unlinks.forEach((unlink) => unlink());
}

/** Where a value lands along an axis, from 0 to 1; log axes ("log") compare log10s. */
function fraction(value, [low, high], scale) {
  const t = scale === "log" ? Math.log10 : (v) => v;
  return (t(value) - t(low)) / (t(high) - t(low));
}

function toPixels(panel, x, y) {
  const [left, top, width, height] = panel.box;
  const [xscale, yscale] = panel.scale;
  return [
    left + fraction(x, panel.x, xscale) * width,
    top + (1 - fraction(y, panel.y, yscale)) * height,
  ];
}

function clipTo(context, panel) {
  const [left, top, width, height] = panel.box;
  context.beginPath();
  context.rect(left, top, width, height);
  context.clip();
}

/**
 * The moving parts: a line across both panels at x, and each known value's marker.
 * `scale`: device pixels per CSS pixel of the picture the kernel drew (the panels' boxes
 * are in those), in x and y; more or less than devicePixelRatio while it draws anew.
 */
function drawMovingParts(context, at, style, panels, [scaleX, scaleY]) {
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, context.canvas.width, context.canvas.height);
  context.setTransform(scaleX, 0, 0, scaleY, 0, 0);
  for (const panel of panels) {
    context.save();
    clipTo(context, panel);
    const [px] = toPixels(panel, at.x, 0);
    const [, top, , height] = panel.box;
    context.strokeStyle = style.line.colour;
    context.lineWidth = style.line.width;
    context.beginPath();
    context.moveTo(px, top);
    context.lineTo(px, top + height);
    context.stroke();
    context.restore();
  }
  for (const key of style.keys) {
    if (!Number.isFinite(at[key])) continue;
    const marker = style.markers[key];
    const panel = panels[marker.panel];
    const [px, py] = toPixels(panel, at.x, at[key]);
    if (!Number.isFinite(px) || !Number.isFinite(py)) continue; // 0 on a log axis
    const r = marker.size / 2;
    context.save();
    clipTo(context, panel);
    context.beginPath();
    if (marker.shape === "diamond") {
      const d = r * Math.SQRT2; // matplotlib's "D": a square of side `size`, turned 45°
      context.moveTo(px, py - d);
      context.lineTo(px + d, py);
      context.lineTo(px, py + d);
      context.lineTo(px - d, py);
      context.closePath();
    } else if (marker.shape === "square") {
      context.rect(px - r, py - r, 2 * r, 2 * r);
    } else {
      context.arc(px, py, r, 0, 2 * Math.PI);
    }
    context.fillStyle = marker.colour;
    context.strokeStyle = marker.colour;
    context.lineWidth = style.edge;
    context.fill();
    context.stroke();
    context.restore();
  }
}

function layer() {
  const canvas = document.createElement("canvas");
  canvas.setAttribute("aria-hidden", "true");
  Object.assign(canvas.style, { position: "absolute", left: "0", top: "0" });
  return [canvas, canvas.getContext("2d")];
}

/** Give a layer `size` in CSS pixels and one pixel per device pixel (this clears it). */
function sizeLayer(canvas, size) {
  [canvas.width, canvas.height] = backingSize(size, size.ratio);
  canvas.style.width = `${size.width}px`;
  canvas.style.height = `${size.height}px`;
}

function writeReadout(readout, words, style) {
  const line = document.createElement("div");
  line.style.cssText = "font-family: monospace; font-size: 1.15em;";
  for (const [key, text] of words.parts) {
    const span = document.createElement("span");
    span.textContent = text;
    span.style.marginRight = "1.5em";
    if (style.markers[key]) span.style.color = style.markers[key].colour;
    line.append(span, " "); // a space, so a screen reader does not run the values together
  }
  const verdict = document.createElement("div");
  verdict.textContent = `${words.verdict[0].toUpperCase()}${words.verdict.slice(1)}.`;
  readout.replaceChildren(line, verdict);
  if (style.note) {
    const note = document.createElement("div");
    note.textContent = style.note;
    readout.append(note);
  }
}

/** ipywidgets leaves slider handles unnamed: give each its slider's label, for screen readers. */
function nameHandles(root) {
  for (const handle of root.querySelectorAll(".noUi-handle:not([aria-label])")) {
    const label = handle.closest(".widget-slider")?.querySelector(".widget-label")?.textContent;
    if (!label) continue;
    const end = handle.classList.contains("noUi-handle-upper") ? ", upper end" : ", lower end";
    const ranged = handle.parentElement?.parentElement?.querySelectorAll(".noUi-handle").length > 1;
    handle.setAttribute("aria-label", ranged ? `${label}${end}` : label);
  }
}

async function render({ model, el }) {
  const style = model.get("picture_style");
  const controls = model.get("controls");
  const point = await modelOf(model, controls.point);
  const inputs = await Promise.all(controls.inputs.map((input) => modelOf(model, input)));

  const picture = document.createElement("div");
  picture.className = "explorer-picture";
  picture.setAttribute("role", "img");
  picture.style.position = "relative";
  const [back, backContext] = layer(); // the kernel's PNG, pixel for pixel once it caught up
  const [front, frontContext] = layer(); // the moving parts
  const badge = document.createElement("div");
  badge.className = "explorer-badge";
  badge.textContent = "updating…";
  badge.setAttribute("aria-hidden", "true");
  badge.hidden = true;
  badge.style.cssText =
    "position: absolute; top: 6px; right: 8px; padding: 2px 10px; border-radius: 4px; " +
    "background: rgba(255, 255, 255, 0.9); border: 1px solid #999; font: 14px sans-serif;";
  picture.append(back, front, badge);
  const readout = document.createElement("div");
  readout.className = "explorer-readout";
  readout.setAttribute("aria-live", "polite");
  el.append(picture, readout);

  let shown = { samples: null, meta: null, bitmap: null }; // the curves on screen
  let latest = 0; // the newest curves received: a slower, older decode is dropped
  let closed = false; // the view was removed
  let size = null; // the picture's CSS size and devicePixelRatio: {width, height, ratio}
  let requested = null; // the size last asked of the kernel
  let settling = null; // the timer that asks once a resize has settled

  /** Device pixels per CSS pixel of the kernel's picture, in x and y. */
  function scale() {
    const drawn = shown.meta.size;
    return [back.width / drawn.width, back.height / drawn.height];
  }

  function drawBackground() {
    backContext.clearRect(0, 0, back.width, back.height);
    if (shown.bitmap) backContext.drawImage(shown.bitmap, 0, 0, back.width, back.height);
  }

  /** For tests and benchmarks: the size drawn, the image's pixels, the smallest font shown. */
  function describeSize() {
    const drawn = shown.meta.size;
    Object.assign(picture.dataset, {
      drawnWidth: String(drawn.width),
      drawnRatio: String(drawn.ratio),
      imageWidth: String(shown.bitmap.width),
      imageHeight: String(shown.bitmap.height),
      smallestFont: String((shown.meta.smallest_font * size.width) / drawn.width),
    });
  }

  function drawPoint() {
    const { samples, meta } = shown;
    if (!meta) return;
    const at = pointAt(point.get("value"), samples, model.get("exact"), meta, style);
    drawMovingParts(frontContext, at, style, meta.panels, scale());
    const words = describe(at, style, meta);
    writeReadout(readout, words, style);
    picture.setAttribute("aria-label", words.alt);
    picture.dataset.x = String(at.x); // for tests and benchmarks: the x now drawn
  }

  function showBusy() {
    if (!shown.meta) return;
    const asked = inputs.map((input) => input.get("value"));
    const busy = !sameValues(asked, shown.meta.inputs);
    badge.hidden = !busy;
    back.style.opacity = busy ? "0.5" : "1";
    picture.classList.toggle("explorer-updating", busy);
    picture.setAttribute("aria-busy", String(busy));
  }

  async function showCurves() {
    const ticket = ++latest;
    const meta = model.get("meta");
    const samples = unpackSamples(model.get("samples"), style.rows);
    const png = new Blob([model.get("background")], { type: "image/png" });
    const bitmap = await createImageBitmap(png); // decoded off the main thread
    if (closed || ticket !== latest) return bitmap.close();
    shown.bitmap?.close();
    shown = { samples, meta, bitmap }; // the bitmap is kept: a resize draws it again
    drawBackground();
    describeSize();
    picture.dataset.revision = String(meta.revision);
    drawPoint();
    showBusy();
  }

  /** Tell the kernel the size to draw at: the first at once, later ones once settled. */
  function ask() {
    clearTimeout(settling);
    const wanted = { ...size };
    const send = () => {
      if (closed || sameValues(Object.values(wanted), Object.values(requested ?? {}))) return;
      requested = wanted;
      model.set("size", wanted);
      model.save_changes();
    };
    if (requested === null) send();
    else settling = setTimeout(send, SETTLE_MS); // a dragged window edge resizes many times
  }

  /** Show the picture at `next` ({width, height, ratio}), stretching what it holds. */
  function resize(next) {
    size = next;
    picture.style.width = `${size.width}px`;
    picture.style.height = `${size.height}px`;
    sizeLayer(back, size);
    sizeLayer(front, size);
    if (!shown.meta) return;
    drawBackground();
    describeSize();
    drawPoint();
  }

  /** Size the picture to its container and the screen; ask the kernel to draw it anew. */
  function fit() {
    if (closed || el.clientWidth === 0) return; // not laid out (yet): nothing to measure
    const next = { ...pictureSize(el.clientWidth, style), ratio: window.devicePixelRatio || 1 };
    if (requested !== null && sameValues(Object.values(next), Object.values(size))) return;
    resize(next);
    ask();
  }

  // Resized in a later frame: resizing inside the observer's callback would resize what it
  // observes again, which the browser reports as an error ("ResizeObserver loop").
  const resizes = new ResizeObserver(() => requestAnimationFrame(fit));
  resizes.observe(el);
  let density = null; // a media query that changes when devicePixelRatio does (zoom, screen)
  function watchDensity() {
    density = matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    density.addEventListener("change", onDensity, { once: true });
  }
  function onDensity() {
    fit();
    if (!closed) watchDensity();
  }
  watchDensity();

  let handles = null;
  function watchHandles() {
    const root = el.closest(".lessons-explorer");
    if (closed) return;
    if (!root) return requestAnimationFrame(watchHandles); // not in the page yet
    handles = new MutationObserver(() => nameHandles(root));
    handles.observe(root, { childList: true, subtree: true });
    nameHandles(root);
  }

  model.on("change:meta", showCurves);
  model.on("change:exact", drawPoint);
  point.on("change:value", drawPoint);
  for (const input of inputs) input.on("change:value", showBusy);
  watchHandles();
  const { width, height } = model.get("meta").size; // as the kernel drew it, until measured
  resize({ width, height, ratio: window.devicePixelRatio || 1 });
  await showCurves();
  return () => {
    closed = true;
    clearTimeout(settling);
    resizes.disconnect();
    density.removeEventListener("change", onDensity);
    shown.bitmap?.close();
    point.off("change:value", drawPoint);
    for (const input of inputs) input.off("change:value", showBusy);
    handles?.disconnect();
  };
}

export default { initialize, render };
