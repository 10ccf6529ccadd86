// The moving parts, drawn on the front canvas: the point's line across every panel and
// each known value's marker, placed with the panels' boxes and limits the kernel sent.
// One part of the front end (see values.js).

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
