// The explorers' words: each explorer's readout and the picture's text alternative at a
// point (`picture_style.kind` says which explorer), and the readout written into the page.
// One part of the front end (see values.js).

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

/** A value not known: NaN here, null as JSON carries it. */
function unknown(value) {
  return value === null || Number.isNaN(value);
}

/** The surrogate explorer's words: x, forward, backward, the shape picked and the truth. */
function describeSurrogate(at, style, meta) {
  const { labels } = style;
  const values = style.keys.map((key) => [key, `${labels[key]} = ${formatNumber(at[key])}`]);
  let verdict;
  if (!at.known) {
    verdict = "asking the kernel for the values at this exact x";
  } else if (unknown(at.true)) {
    verdict = "at the jump: the step has no gradient here";
  } else if (unknown(at.backward)) {
    verdict = `${labels.backward} is unknown here: see the message above the sliders`;
  } else {
    verdict = `${labels.backward} passes ${formatNumber(at.backward)} back where the true gradient is 0`;
  }
  const x = `x = ${formatNumber(at.x)}`;
  const [low, high] = meta.range.map(formatNumber);
  const alt =
    `Surrogate explorer for ${style.name} over x from ${low} to ${high}: the step forwards on ` +
    `top; below, backward, the ${meta.shape} bump (width ${formatNumber(meta.width)}, ` +
    `threshold ${formatNumber(meta.threshold)}) and the true gradient, 0 everywhere. At ${x}: ` +
    `${values.map(([, text]) => text).join(", ")}; ${verdict}.`;
  return { parts: [["x", x], ...values], verdict, alt };
}

const DESCRIBE = { gradient: describeGradient, steps: describeSteps, surrogate: describeSurrogate };

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
