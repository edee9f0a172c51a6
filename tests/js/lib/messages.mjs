// messages.mjs: the sentences the page says through its catalogue (web/i18n.js), read from the
// source of web/ without running it: every literal of t('…'), N_('…') and both of tn(n, '…',
// '…'), for the completeness check of the catalogues (i18n.test.mjs) and for translators.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The .js files under `dir`, recursively. */
function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return jsFiles(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

const STR = String.raw`'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"`;
const CALL = new RegExp(String.raw`\b(t|N_)\(\s*(?:${STR})`, 'g');
const PLURAL = new RegExp(String.raw`\btn\([^,()]*(?:\([^()]*\))?[^,()]*,\s*(?:${STR})\s*,\s*(?:${STR})`, 'g');

/** A JS string literal's body as the string it makes (the escapes the page's sources use). */
const unescape = (s) => s.replace(/\\(.)/g, (_, c) => ({ n: '\n', t: '\t' }[c] ?? c));

/**
 * The keys said in `webDir` (web/): a Map from each key to the files (relative paths) that say
 * it. A call whose key is not a literal (t(x)) is not seen: its keys must be marked with N_().
 */
export function pageMessages(webDir) {
  const keys = new Map();
  const add = (k, file) => { if (!keys.has(k)) keys.set(k, new Set()); keys.get(k).add(file); };
  for (const file of jsFiles(webDir)) {
    const rel = file.slice(webDir.length + 1);
    if (rel === 'i18n.js') continue;
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(CALL)) add(unescape(m[2] ?? m[3]), rel);
    for (const m of src.matchAll(PLURAL)) { add(unescape(m[1] ?? m[2]), rel); add(unescape(m[3] ?? m[4]), rel); }
  }
  return keys;
}

/** The {placeholders} of `s`, sorted, as one string ("{count}{name}"). */
export function placeholders(s) {
  return [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[0]).sort().join('');
}
