// The "Train again" button in the browser. While the kernel trains, the button says it is
// unavailable (aria-disabled) and ignores presses, yet keeps the keyboard's focus: a
// disabled button would drop it, leaving a keyboard or screen reader user nowhere.

function render({ model, el }) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "jupyter-widgets jupyter-button widget-button mod-primary training-train";
  button.textContent = model.get("description");
  button.addEventListener("click", () => {
    if (model.get("busy")) return; // one training at a time
    model.set("busy", true); // at once: a second press before the kernel answers does nothing
    model.send({ do: "click" });
  });
  const show = () => button.setAttribute("aria-disabled", String(model.get("busy")));
  model.on("change:busy", show);
  show();
  el.append(button);
  return () => model.off("change:busy", show);
}

export default { render };
