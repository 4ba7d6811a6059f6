// A random seed from this browser, mixed into the dice (see docs/fairness.md).
const bytes = new Uint8Array(16);
crypto.getRandomValues(bytes);
export const clientSeed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

for (const input of document.querySelectorAll('input[name="client_seed"]')) {
  if (!input.value) input.value = clientSeed;
}
