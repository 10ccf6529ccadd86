/* Fits every slide of a deck into reveal.js's fixed slide (960x700). A slide is one heading
   of a notebook and can hold a dozen cells, so one taller than the slide is split into parts,
   sub-slides that follow it: between cells, and inside a cell too tall for a slide between its
   blocks (a Markdown cell's paragraphs, pictures, lists, then a long list's items or table's
   rows; a code cell's source and each of its outputs, then an HTML output's blocks). A block taller than a
   slide by itself gets a part that scrolls, with "more below" at its foot until it is scrolled
   to its end. Measured here, in the browser that shows the deck, after MathJax has typeset, so
   it holds for this browser's fonts. Sets <html data-slides-fitted="N">, N the number of
   slides split, when done. */

const CONTINUED_LABEL = 24; // px: the "(continued)" line above every part after the first
const SMALLEST_DIAGRAM = 0.6; // a diagram's font shrinks to fit down to this share, then scrolls
const HEADING = /^H[1-6]$/;

async function fitSlides(reveal) {
  if (document.readyState !== "complete") {
    await new Promise((done) => window.addEventListener("load", done, { once: true }));
  }
  if (window.MathJax?.startup) await window.MathJax.startup.promise;
  await document.fonts.ready;
  const height = reveal.getConfig().height;
  let split = 0;
  for (const slide of document.querySelectorAll(".reveal .slides > section > section")) {
    const parts = measured(slide, () => {
      fitDiagrams(slide);
      return partsOf(slide, height);
    });
    const sections = parts ? fill(slide, parts, height) : [slide];
    if (sections.length > 1) split += 1;
    for (const section of sections) measured(section, () => scrollIfTall(section, height));
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

/* A diagram keeps its lines (fit.css): one wider than the slide gets a smaller font, as small
   as SMALLEST_DIAGRAM of it; whatever is still too wide scrolls sideways inside its block. */
function fitDiagrams(slide) {
  for (const pre of slide.querySelectorAll(".jp-RenderedMarkdown pre")) {
    const size = parseFloat(getComputedStyle(pre).fontSize);
    let scaled = size * Math.min(1, pre.clientWidth / pre.scrollWidth);
    while (pre.scrollWidth > pre.clientWidth && scaled >= size * SMALLEST_DIAGRAM) {
      pre.style.fontSize = `${scaled.toFixed(1)}px`;
      scaled -= 0.5; // the first guess can miss by a rounding: step down until it fits
    }
  }
}

/* Whether some of the part lies below the slide's foot: text, not just a cell's padding. */
function overflows(part, height) {
  if (part.scrollHeight <= height) return false;
  const box = part.getBoundingClientRect();
  const scale = box.height / part.offsetHeight || 1;
  let bottom = box.top;
  for (const el of part.querySelectorAll(":scope > :not(.fit-more), :scope > * *")) {
    if (shown(el)) bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
  }
  return (bottom - box.top) / scale > height + 1;
}

const shown = (el) => el.getClientRects().length > 0; // not display: none (it has no box)
const margin = (el, side) => parseFloat(getComputedStyle(el)[`margin${side}`]) || 0;

/* Where an element lies in the slide, margins included, in the slide's own pixels (reveal.js
   scales the slide to the screen). */
function placer(slide) {
  const box = slide.getBoundingClientRect();
  const scale = box.height / slide.offsetHeight || 1;
  return (el) => {
    const r = el.getBoundingClientRect();
    return {
      top: (r.top - box.top) / scale - margin(el, "Top"),
      bottom: (r.bottom - box.top) / scale + margin(el, "Bottom"),
    };
  };
}

/* The slide's content in runs that should each fit the slide, or null if it fits already:
   runs of units, a unit being a cell, or a block of a cell too tall for the slide. */
function partsOf(slide, height) {
  const cells = [...slide.children];
  if (!cells.length || !overflows(slide, height)) return null;
  const place = placer(slide);
  const padding = slide.scrollHeight - (place(cells.at(-1)).bottom - place(cells[0]).top);
  const room = (label) => height - padding - (label ? CONTINUED_LABEL : 0);
  const units = cells.flatMap((cell) => unitsOf(cell, room(true), place));
  const parts = [[]];
  let start = units[0].top;
  for (const unit of units) {
    const part = parts.at(-1);
    // A heading with a line or two stays with what follows rather than stand alone.
    const lone = part.length === 1 && part[0] === units[0] && units[0].height < height / 6;
    if (part.length && !lone && unit.bottom - start > room(parts.length > 1)) {
      parts.push(withHeading(part, [unit]));
      start = parts.at(-1)[0].top;
    } else {
      part.push(unit);
    }
  }
  return parts;
}

/* `next`, led by the heading that ends `part` if any: a heading goes with what it heads. */
function withHeading(part, next) {
  if (part.length > 1 && HEADING.test(part.at(-1).block?.tagName)) next.unshift(part.pop());
  return next;
}

/* What a slide may be cut between: the cell, or if it is too tall for `room` its blocks, cut
   finer while too tall; each with the top and bottom its piece would have, frame included. */
function unitsOf(cell, room, place) {
  const whole = place(cell);
  const unit = (block) => {
    let { top, bottom } = place(block);
    const height = bottom - top;
    for (let el = block.parentElement; el !== cell.parentElement; el = el.parentElement) {
      const around = place(el);
      const inside = [...el.children].filter(shown).map(place);
      if (!inside.length) continue;
      top -= Math.max(0, Math.min(...inside.map((box) => box.top)) - around.top);
      bottom += Math.max(0, around.bottom - Math.max(...inside.map((box) => box.bottom)));
    }
    return { cell, block, top, bottom, height };
  };
  const finer = (u) => {
    const blocks = u.bottom - u.top > room ? blocksIn(u.block ?? cell) : [];
    return blocks.length > 1 ? blocks.map(unit).flatMap(finer) : [u];
  };
  const units = finer({ cell, ...whole, height: whole.bottom - whole.top });
  units.forEach((u, index) => Object.assign(u, { index, siblings: units }));
  return units;
}

/* The blocks `el` can be cut into: a cell's (source and outputs, or Markdown's paragraphs,
   lists...), a table's rows, a list's items, an HTML output's blocks inside the wrappers
   that hold them all. */
function blocksIn(el) {
  if (el.matches(".jp-CodeCell")) {
    const source = ":scope > .jp-Cell-inputWrapper";
    return [...el.querySelectorAll(`${source}, :scope > * > .jp-OutputArea > *`)];
  }
  if (el.matches(".jp-MarkdownCell")) {
    return [...(el.querySelector(".jp-RenderedMarkdown")?.children ?? [])];
  }
  if (el.matches("table")) return [...el.querySelectorAll(":scope > tbody > tr")]; // head kept
  if (el.matches("ul, ol")) {
    // Each item keeps its number in whichever piece of the list it lands.
    if (el.matches("ol")) [...el.children].forEach((li, i) => (li.value = el.start + i));
    return [...el.children];
  }
  let inner = el.matches(".jp-OutputArea-child") && el.querySelector(".jp-RenderedHTML");
  let blocks = [];
  while (inner) {
    blocks = [...inner.children].filter((child) => !child.matches("style, script"));
    inner = blocks.length === 1 && blocks[0].matches("div") && blocks[0];
  }
  return blocks;
}

/* The slide and the parts after it, each filled with its run, a run that overflows once in
   place handing its last units on to the next part. Returns the slide and its parts. */
function fill(slide, parts, height) {
  const heading = slide.querySelector("h1, h2, h3, h4");
  const title = heading ? heading.textContent.replace(/¶$/, "").trim() : "";
  const sections = [slide];
  for (let i = 0; i < parts.length; i++) {
    const section = sections[i] ?? continuation(sections[i - 1], title);
    sections[i] = section;
    measured(section, () => {
      const part = parts[i];
      section.replaceChildren(...assemble(part));
      while (overflows(section, height)) {
        if (part.length > 1) {
          parts[i + 1] = withHeading(part, [part.pop(), ...(parts[i + 1] ?? [])]);
        } else if (!cutFiner(part)) {
          break;
        }
        section.replaceChildren(...assemble(part));
      }
    });
  }
  return sections;
}

/* Cuts a run's one unit into its blocks, if it has any: a unit thought to fit that does not. */
function cutFiner(run) {
  const [unit] = run;
  const { cell, siblings } = unit;
  const finer = blocksIn(unit.block ?? cell).map((block) => ({ cell, block, siblings }));
  if (finer.length < 2) return false;
  siblings.splice(siblings.indexOf(unit), 1, ...finer);
  siblings.forEach((u, index) => (u.index = index));
  run.splice(0, 1, ...finer);
  return true;
}

/* A new sub-slide after `after`, labelled with the slide's heading. */
function continuation(after, title) {
  const part = document.createElement("section");
  part.className = "fit-continued";
  part.dataset.continues = title;
  after.after(part);
  return part;
}

/* A run's elements: a cell whole where the run holds all of it, else a piece of it. */
function assemble(units) {
  const runs = [];
  for (const unit of units) {
    const last = runs.at(-1);
    if (unit.block && last?.[0].siblings === unit.siblings) last.push(unit);
    else runs.push([unit]);
  }
  return runs.map((run) => (run.length === run[0].siblings.length ? run[0].cell : pieceOf(run)));
}

/* A copy of a cell with only the run's blocks left in it, and what frames them: prompts,
   wrappers, a table's head. A copy, so that a run can be assembled again. */
function pieceOf(run) {
  const { cell, siblings } = run[0];
  const piece = cell.cloneNode(true);
  const copyOf = (block) => {
    const path = []; // each element's place among its parent's children, from the cell down
    for (let el = block; el !== cell; el = el.parentElement) {
      path.unshift([...el.parentElement.children].indexOf(el));
    }
    return path.reduce((copy, at) => copy.children[at], piece);
  };
  const kept = run.map((unit) => copyOf(unit.block));
  const dropped = siblings.filter((unit) => !run.includes(unit)).map((unit) => copyOf(unit.block));
  const keeps = (el) => kept.some((copy) => el.contains(copy));
  for (let el of dropped) {
    if (!piece.contains(el)) continue; // went with a wrapper already
    while (el.parentElement !== piece && !keeps(el.parentElement)) el = el.parentElement;
    el.remove();
  }
  if (run[0].index > 0) piece.removeAttribute("id"); // the cell's address leads to its start
  return piece;
}

/* A part still taller than the slide scrolls, and says so at its foot until scrolled to its
   end: else a teacher pressing the right arrow never sees the rest. */
function scrollIfTall(part, height) {
  if (!overflows(part, height)) return;
  part.classList.add("fit-scroll");
  part.style.height = `${height}px`;
  const more = document.createElement("div");
  more.className = "fit-more";
  more.textContent = "more below (↓)";
  part.append(more);
  const atEnd = () => part.scrollTop + part.clientHeight >= part.scrollHeight - more.offsetHeight;
  part.addEventListener("scroll", () => part.classList.toggle("fit-at-end", atEnd()));
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
