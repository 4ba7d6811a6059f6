// The page's words in its reader's language: Django's JavaScript catalog (games/web/i18n.py,
// loaded by templates/base.html before any module) gives gettext and friends. Without it (a
// page outside the site) the English source is shown as it is.

const django = globalThis.django ?? {};

export const gettext = django.gettext ?? ((text) => text);
export const ngettext = django.ngettext ?? ((one, many, n) => (n === 1 ? one : many));
export const pgettext = django.pgettext ?? ((context, text) => text);
export const npgettext = django.npgettext ?? ((context, one, many, n) => (n === 1 ? one : many));

/** A message's %(name)s placeholders filled from `values`. */
export const fmt = (text, values) => text.replace(/%\(([a-z_]+)\)s/g, (_, key) => String(values[key] ?? ""));

/** The page's language (the <html lang> the server set). */
export const language = document.documentElement.lang || "en";

const numbers = new Map();
/** A number as the page's language writes it: 12.5 → "12,5" in Danish. */
export function number(value, digits = 0) {
  if (!numbers.has(digits)) {
    numbers.set(digits, new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return numbers.get(digits).format(value);
}

/** Names as a list in the page's language: "Ann, Bo and Cy", "Ann, Bo og Cy". */
export function list(items) {
  return new Intl.ListFormat(language, { style: "long", type: "conjunction" }).format(items.map(String));
}
