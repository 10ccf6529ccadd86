// The picture's size: as wide as its container lets it be, and its canvases (layers) sized
// in CSS pixels with one pixel per device pixel. One part of the front end (see values.js).

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
