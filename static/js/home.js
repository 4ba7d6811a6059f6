// Home: show the fields of the chosen way to play, and one name field per pass-and-play player.
import "./seed.js";

const form = document.getElementById("create-form");
const count = document.getElementById("id_players");
const online = form.querySelector(".online-only");
const local = form.querySelector(".local-only");
const submit = document.getElementById("create-btn");

function update() {
  const mode = form.querySelector('input[name="mode"]:checked')?.value ?? "online";
  const isLocal = mode === "local";
  online.hidden = isLocal;
  local.hidden = !isLocal;
  document.getElementById("id_name").required = !isLocal;
  const n = Number(count.value) || 1;
  local.querySelectorAll(".player-field").forEach((field, i) => {
    field.hidden = i >= n;
  });
  submit.textContent = isLocal ? "Start game" : "Create room";
}

form.addEventListener("change", update);
count.addEventListener("input", update);
update();
