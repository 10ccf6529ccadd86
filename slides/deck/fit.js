/* Fits every slide of a deck into reveal.js's fixed slide (960x700). A slide is one heading
   of a notebook and can hold a dozen cells, so one taller than the slide is split, at cell
   boundaries, into sub-slides that follow it; a cell taller than a slide by itself gets a
   part that scrolls. Measured here, in the browser that shows the deck, after MathJax has
   typeset, so it holds for this browser's fonts. Sets <html data-slides-fitted="N">, N the
   number of slides split, when done. */

const CONTINUED_LABEL = 36; // px: the "(continued)" line above every part after the first

async function fitSlides(reveal) {
  if (document.readyState !== "complete") {
    await new Promise((done) => window.addEventListener("load", done, { once: true }));
  }
  if (window.MathJax?.startup) await window.MathJax.startup.promise;
  await document.fonts.ready;
  const height = reveal.getConfig().height;
  let split = 0;
  for (const slide of document.querySelectorAll(".reveal .slides > section > section")) {
    const parts = measured(slide, () => partsOf(slide, height));
    if (parts.length > 1) split += 1;
    const all = [slide, ...continuations(slide, parts.slice(1))];
    for (const part of all) measured(part, () => scrollIfTall(part, height));
  }
  reveal.sync();
  reveal.layout();
  // Down and up scroll a slide that scrolls before they move on, as they do in a page.
  reveal.configure({
    keyboard: { 38: () => scrollOrStep(reveal, -1), 40: () => scrollOrStep(reveal, 1) },
  });
  window.dispatchEvent(new HashChangeEvent("hashchange")); // the slide the address names
  document.documentElement.dataset.slidesFitted = String(split);
}

/* reveal.js hides slides (and their stacks) far from the current one; measure them shown. */
function measured(slide, measure) {
  const hidden = [slide, slide.parentElement].map((el) => [el, el.style.display]);
  for (const [el] of hidden) el.style.display = "block";
  try {
    return measure();
  } finally {
    for (const [el, display] of hidden) el.style.display = display;
  }
}

const margin = (el, side) => parseFloat(getComputedStyle(el)[`margin${side}`]) || 0;
const topOf = (el) => el.offsetTop - margin(el, "Top");
const bottomOf = (el) => el.offsetTop + el.offsetHeight + margin(el, "Bottom");

/* The slide's cells in runs that each fit the slide (a cell that cannot fit runs alone). */
function partsOf(slide, height) {
  const cells = [...slide.children];
  if (cells.length < 2 || slide.scrollHeight <= height) return [cells];
  const padding = slide.scrollHeight - (bottomOf(cells.at(-1)) - topOf(cells[0]));
  const parts = [[]];
  let start = topOf(cells[0]);
  for (const cell of cells) {
    const part = parts.at(-1);
    const room = height - padding - (parts.length > 1 ? CONTINUED_LABEL : 0);
    // A heading with a line or two stays with what follows rather than stand alone.
    const lone = part.length === 1 && part[0] === cells[0] && cells[0].offsetHeight < height / 6;
    if (part.length && !lone && bottomOf(cell) - start > room) {
      parts.push([cell]);
      start = topOf(cell);
    } else {
      part.push(cell);
    }
  }
  return parts;
}

/* New sub-slides after `slide`, one per run of cells, each labelled with its heading. */
function continuations(slide, parts) {
  const heading = slide.querySelector("h1, h2, h3, h4");
  const title = heading ? heading.textContent.replace(/¶$/, "").trim() : "";
  let after = slide;
  return parts.map((cells) => {
    const part = document.createElement("section");
    part.className = "fit-continued";
    part.dataset.continues = title;
    part.append(...cells);
    after.after(part);
    after = part;
    return part;
  });
}

function scrollIfTall(part, height) {
  if (part.scrollHeight > height) {
    part.classList.add("fit-scroll");
    part.style.height = `${height}px`;
  }
}

function scrollOrStep(reveal, direction) {
  const slide = reveal.getCurrentSlide();
  if (slide.classList.contains("fit-scroll")) {
    const before = slide.scrollTop;
    slide.scrollTop += direction * 0.8 * slide.clientHeight;
    if (slide.scrollTop !== before) return;
  }
  if (direction > 0) reveal.next();
  else reveal.prev();
}
