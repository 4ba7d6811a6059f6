// The "?" explanations (templates/tip.html): a tap or a click shows or hides one, Escape or a
// tap elsewhere hides it. Hover and keyboard focus show it through the CSS alone.

function setOpen(button, open) {
  button.setAttribute("aria-expanded", String(open)); // the CSS shows the explanation that follows
}

const buttons = [...document.querySelectorAll("button[data-tip]")];
for (const button of buttons) {
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    const open = button.getAttribute("aria-expanded") !== "true";
    for (const other of buttons) if (other !== button) setOpen(other, false);
    setOpen(button, open);
  });
}
document.addEventListener("click", (event) => {
  for (const button of buttons) {
    if (!button.parentElement.contains(event.target)) setOpen(button, false);
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const button of buttons) setOpen(button, false);
});
