// The Replay page's setting select: picking another setting puts that setting's current value in
// the Value box (a trial pressed Replay with the old setting's value still there and got no report).
document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector("form.filters[data-replay]");
  if (!form) return;
  const select = form.querySelector("select[name=setting]");
  const value = form.querySelector("input[name=value]");
  const shown = form.querySelector("input[name=shown]");
  select.addEventListener("change", () => {
    const option = select.selectedOptions[0];
    value.value = option.dataset.now;
    value.title = option.dataset.range;
    shown.value = option.value; // the value is the new setting's own: replay it as asked
  });
});
