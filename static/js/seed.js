// Fill hidden client_seed fields with a random seed from this browser (see docs/fairness.md).
const bytes = new Uint8Array(16);
crypto.getRandomValues(bytes);
const seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
for (const input of document.querySelectorAll('input[name="client_seed"]')) {
  if (!input.value) input.value = seed;
}
