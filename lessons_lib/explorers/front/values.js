// The front end's numbers: how a value reads, which sample a slider is at, and what the
// picture shows at a point. Pure functions, exported for the browser tests
// (tests/ui/test_explorer_front.py), which call them beside the kernel's Python.
// One part of the explorers' front end: picture.py joins the parts, in order, into one
// ES module, so no part imports another and nothing is fetched.

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


/** Whether two lists of control values are the same (numbers compared to rounding, and
 * words, such as a picker's choice, compared exactly). */
export function sameValues(a, b) {
  if (typeof a === "string" || typeof b === "string") return a === b;
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
