// A row of toggle buttons in the browser: real buttons whose state a screen reader says
// ("pressed", "not pressed") in a group named by the row's heading. ipywidgets' own
// ToggleButton shows its state by colour alone. Space or Enter toggles a button, as a click.

function render({ model, el }) {
  const heading = model.get("heading");
  const group = document.createElement("div");
  group.className = "training-toggles";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", heading);
  const label = document.createElement("span");
  label.className = "training-toggles-heading";
  label.setAttribute("aria-hidden", "true"); // the group's name says it already
  label.textContent = heading;
  const options = model.get("options");
  const buttons = options.map((option) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "jupyter-widgets jupyter-button widget-toggle-button";
    button.textContent = option;
    button.addEventListener("click", () => {
      const picked = new Set(model.get("value"));
      if (picked.has(option)) picked.delete(option);
      else picked.add(option);
      model.set("value", options.filter((o) => picked.has(o)));
      model.save_changes();
    });
    return button;
  });
  const show = () => {
    const picked = new Set(model.get("value"));
    buttons.forEach((button, i) => {
      const on = picked.has(options[i]);
      button.setAttribute("aria-pressed", String(on));
      button.classList.toggle("mod-active", on); // ipywidgets' look of a pressed button
    });
  };
  model.on("change:value", show);
  show();
  group.append(label, ...buttons);
  el.append(group);
  return () => model.off("change:value", show);
}

export default { render };
