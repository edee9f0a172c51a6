// i18n.js: the page's languages, gettext style: every sentence the page shows goes through t(),
// whose key is the English sentence itself, so a sentence without a translation stays English
// and code changed in parallel merges as plain text. The other languages' catalogues are data
// files (i18n/LANG.json: {messages: {english: translated}, cards: {game: {slug: {name, text}}}}),
// read before any module of the page runs (this module's top-level await), so even a module's
// constants are said in the chosen language. The language is the one chosen on this browser
// (localStorage), else the first of the browser's languages the page has, else English; choosing
// another one reloads the page at the same place (the table, its seat, the lobby all come back).

/** The languages the page speaks: [code, the language's own name]. */
export const LANGUAGES = [['en', 'English'], ['de', 'Deutsch']];
const KEY = 'city.language';

/** The language code to use: the saved choice, else the browser's first known language, else 'en'. */
function pick() {
  const known = (code) => LANGUAGES.some(([c]) => c === code);
  try {
    const saved = globalThis.localStorage?.getItem(KEY);
    if (saved && known(saved)) return saved;
  } catch { /* storage refused: the browser's languages decide */ }
  const nav = globalThis.navigator; // absent where the page's modules run outside a browser (Node's tests)
  for (const tag of nav?.languages ?? [nav?.language ?? 'en']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (known(base)) return base;
  }
  return 'en';
}

let lang = pick();
let catalogue = { messages: {}, cards: {} };
if (lang !== 'en') {
  try {
    const r = await fetch(new URL(`./i18n/${lang}.json`, import.meta.url));
    if (!r.ok) throw new Error(String(r.status));
    catalogue = await r.json();
  } catch {
    lang = 'en'; // no catalogue: the page speaks English rather than half a language
  }
}
if (globalThis.document) document.documentElement.lang = lang;

/** The code of the language the page speaks ("en", "de"). */
export function language() { return lang; }

/**
 * The sentence `key` (English) in the page's language, its {placeholders} filled from `vars`
 * (a placeholder without a value stays as written). An untranslated key is returned as is.
 */
export function t(key, vars = null) {
  const s = catalogue.messages?.[key] || key;
  return vars ? s.replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(vars, k) ? String(vars[k]) : m)) : s;
}

/**
 * The sentence for `count` things: `one` when the language's plural rules say "one" for it,
 * else `other`; both English keys, translated by t() with `count` and `vars` filled in.
 */
export function tn(count, one, other, vars = {}) {
  const form = new Intl.PluralRules(lang).select(count) === 'one' ? one : other;
  return t(form, { count: num(count), ...vars });
}

/** Marks `key` as a sentence to translate where it is said later with t(key): returns it as is. */
export function N_(key) { return key; }

/** Number `n` as the page's language writes it (German: 1.234,5). */
export function num(n, options = {}) {
  return typeof n === 'number' ? new Intl.NumberFormat(lang, options).format(n) : String(n);
}

/** Card `c` ({id, name, text ...}) of game `game` with its name and text in the page's language. */
export function localCard(game, c) {
  const l = catalogue.cards?.[game]?.[c?.id];
  if (!l) return c;
  return { ...c, name: l.name || c.name, text: l.text ?? c.text };
}

/** Chooses language `code` for this browser and reloads the page at the same place. */
export function setLanguage(code) {
  try { localStorage.setItem(KEY, code); } catch { /* not kept: this load only */ }
  location.reload();
}

/** The rule book file of the page's language for English `doc` ("rules.md" -> "de/rules.md"). */
export function localDoc(doc) {
  return lang === 'en' ? doc : `${lang}/${doc}`;
}
