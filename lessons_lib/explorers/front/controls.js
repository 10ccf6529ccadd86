// The controls in the browser: each slider linked to its number box(es), so a typed value
// is drawn at once, and every slider handle named for screen readers. One part of the front
// end (see values.js).

const REFERENCE = "IPY_MODEL_"; // how ipywidgets writes a reference to another widget

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

// The keys a picker (<select>) acts on. JupyterLab in command mode would take them as the
// notebook's shortcuts (ArrowDown selects the next cell, a typed letter may insert a cell or
// restart the kernel) and cancel them, so a keyboard user could never pick. Escape, Tab and
// Enter still reach JupyterLab: leave the cell, move on, run it.
const PICKER_KEYS = new Set([
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
]);

/** Keep every picker's own keys in the explorer; returns a function that stops doing so. */
function keepPickerKeys(root) {
  const keep = (event) => {
    if (event.target.tagName !== "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (PICKER_KEYS.has(event.key) || event.key.length === 1) event.stopPropagation();
  };
  root.addEventListener("keydown", keep);
  return () => root.removeEventListener("keydown", keep);
}
