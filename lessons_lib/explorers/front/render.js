// The explorers' picture in the browser: the front end of lessons_lib's gradient explorer
// and step-size explorer (anywidget). `picture_style.kind` says which one: the drawing is
// shared, only the words differ (DESCRIBE in words.js).
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
// This part, the last of the front end (see values.js), puts the picture in the page.
const SETTLE_MS = 150; // a resize asks the kernel for a new picture once it rests this long

// A picker (a Dropdown) syncs the index of its choice, not its value: listen to both.
const INPUT_CHANGES = "change:value change:index";

/** An input's value as the kernel records it (base.py's synced_value): a picker's index. */
function inputValue(input) {
  const value = input.get("value");
  return value === undefined ? input.get("index") : value;
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
    const asked = inputs.map(inputValue);
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
  let freePickerKeys = null;
  function watchHandles() {
    const root = el.closest(".lessons-explorer");
    if (closed) return;
    if (!root) return requestAnimationFrame(watchHandles); // not in the page yet
    handles = new MutationObserver(() => nameHandles(root));
    handles.observe(root, { childList: true, subtree: true });
    nameHandles(root);
    freePickerKeys = keepPickerKeys(root);
  }

  model.on("change:meta", showCurves);
  model.on("change:exact", drawPoint);
  point.on("change:value", drawPoint);
  for (const input of inputs) input.on(INPUT_CHANGES, showBusy);
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
    for (const input of inputs) input.off(INPUT_CHANGES, showBusy);
    handles?.disconnect();
    freePickerKeys?.();
  };
}

export default { initialize, render };
