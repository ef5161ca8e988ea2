// The Replay page's setting select: picking another setting puts that setting's current value in
// the Value box (with the old setting's value left there, Replay gives no report),
// as a number box, or for a choice (the executive's strategy) a list of its names.
document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector("form.filters[data-replay]");
  if (!form) return;
  const select = form.querySelector("select[name=setting]");
  const shown = form.querySelector("input[name=shown]");
  const shownValue = form.querySelector("input[name=shown_value]");
  const now = document.querySelector("p[data-current]");
  select.addEventListener("change", () => {
    const option = select.selectedOptions[0];
    const old = form.querySelector("[name=value]");
    let value;
    if (option.dataset.choices) {
      value = document.createElement("select");
      for (const name of option.dataset.choices.split(",")) {
        value.add(new Option(name, name, false, name === option.dataset.now));
      }
    } else {
      value = document.createElement("input");
      value.type = "number";
      value.step = "any";
    }
    value.name = "value";
    value.value = option.dataset.now;
    value.title = option.dataset.range;
    old.replaceWith(value);
    shown.value = option.value; // the value is the new setting's own: replay it as asked
    shownValue.value = option.dataset.now;
    if (now) {
      // else the line says the previous setting's value ("heuristic_threshold = 0.7" under the strategy)
      const code = document.createElement("code");
      code.textContent = option.value;
      now.replaceChildren("Now: ", code, ` = ${option.dataset.now}; Replay or Tune to see it on the logged decisions.`);
      now.dataset.current = option.dataset.now;
    }
  });
});
