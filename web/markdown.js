// markdown.js: a small, safe Markdown renderer for the project's own rule books (docs/*.md),
// loaded only when a rules page opens. It builds DOM with h(): every piece of text is set as
// text, never parsed as HTML, and a link keeps only an http(s) or same-page address. It knows
// headings (with ids, for a table of contents), paragraphs, lists (one level of nesting),
// tables, block quotes, fenced code, rules, and inline code, **strong**, *emphasis* and links.

import { h } from './dom.js';

/** A heading's anchor id: lower case words joined by '-', unique within `used` (a Set). */
export function slugify(text, used = new Set()) {
  const base = text.toLowerCase().replace(/[`*_]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'section';
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  used.add(id);
  return id;
}

/** Inline Markdown of `text` as an array of nodes (text nodes, code, strong, em, a). */
export function inline(text) {
  const out = [];
  let buf = '';
  const flush = () => { if (buf) { out.push(buf); buf = ''; } };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && /[\\`*_[\]()#|>-]/.test(text[i + 1])) { buf += text[i + 1]; i += 2; continue; }
    if (ch === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i) { flush(); out.push(h('code', {}, text.slice(i + 1, end))); i = end + 1; continue; }
    }
    if ((ch === '*' || ch === '_') && text[i + 1] === ch) {
      const end = text.indexOf(ch + ch, i + 2);
      if (end > i + 2) { flush(); out.push(h('strong', {}, inline(text.slice(i + 2, end)))); i = end + 2; continue; }
    }
    if ((ch === '*' || ch === '_') && text[i + 1] && text[i + 1] !== ' ' && (ch === '*' || !/\w/.test(text[i - 1] ?? ''))) {
      let end = i + 1;
      for (;;) {
        end = text.indexOf(ch, end);
        if (end < 0 || text[end + 1] !== ch) break;
        end += 2;
      }
      if (end > i + 1 && text[end - 1] !== ' ' && (ch === '*' || !/\w/.test(text[end + 1] ?? ''))) {
        flush(); out.push(h('em', {}, inline(text.slice(i + 1, end)))); i = end + 1; continue;
      }
    }
    if (ch === '[') {
      const m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(text.slice(i));
      if (m) {
        flush();
        const href = safeHref(m[2]);
        out.push(href ? h('a', { href, rel: 'noopener' }, inline(m[1])) : h('span', {}, inline(m[1])));
        i += m[0].length;
        continue;
      }
    }
    buf += ch;
    i++;
  }
  flush();
  return out;
}

/** An address a rendered link may keep: http(s) only; anything else (javascript:, files) is dropped. */
function safeHref(href) {
  return /^https?:\/\//i.test(href) ? href : null;
}

const BLOCK_START = /^(#{1,6}\s|```|>|\s*([-*+]|\d+[.)])\s|\||(-{3,}|\*{3,})\s*$)/;

/**
 * Renders Markdown `src` to a DocumentFragment. Returns {fragment, headings: [{level, id, text}]}
 * (the h2 and h3 headings, for a table of contents).
 */
export function renderMarkdown(src) {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const fragment = document.createDocumentFragment();
  const headings = [];
  const used = new Set();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    let m;
    if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      const level = m[1].length;
      const text = m[2];
      const id = slugify(text, used);
      const el = h(`h${level}`, { id, tabindex: -1 }, inline(text));
      if (level === 2 || level === 3) headings.push({ level, id, text: el.textContent });
      fragment.append(el);
      i++;
    } else if (line.startsWith('```')) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].startsWith('```')) body.push(lines[i++]);
      i++;
      fragment.append(h('pre', {}, h('code', {}, body.join('\n'))));
    } else if (/^(-{3,}|\*{3,})\s*$/.test(line)) {
      fragment.append(h('hr'));
      i++;
    } else if (line.startsWith('>')) {
      const body = [];
      while (i < lines.length && lines[i].startsWith('>')) body.push(lines[i++].replace(/^>\s?/, ''));
      fragment.append(h('blockquote', {}, renderMarkdown(body.join('\n')).fragment));
    } else if (line.startsWith('|')) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith('|')) rows.push(lines[i++]);
      fragment.append(table(rows));
    } else if (/^\s*([-*+]|\d+[.)])\s/.test(line)) {
      const [list, next] = parseList(lines, i);
      fragment.append(list);
      i = next;
    } else {
      const para = [line.trim()];
      i++;
      while (i < lines.length && lines[i].trim() && !BLOCK_START.test(lines[i])) para.push(lines[i++].trim());
      fragment.append(h('p', {}, inline(para.join(' '))));
    }
  }
  return { fragment, headings };
}

/** Splits a table row into its cells (a backslash keeps a | inside a cell). */
function cells(row) {
  const s = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') { cur += '|'; i++; } else if (s[i] === '|') { out.push(cur.trim()); cur = ''; } else cur += s[i];
  }
  out.push(cur.trim());
  return out;
}

function table(rows) {
  const sep = rows.length > 1 && /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(rows[1]);
  const head = sep ? cells(rows[0]) : null;
  const body = rows.slice(sep ? 2 : 0).map(cells);
  return h('div', { class: 'md-table' }, h('table', {},
    head ? h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, inline(c))))) : null,
    h('tbody', {}, body.map((r) => h('tr', {}, r.map((c) => h('td', {}, inline(c))))))));
}

/** A list starting at lines[i]; items continue on indented lines; a deeper marker nests. Returns [list, next index]. */
function parseList(lines, i) {
  const indent = lines[i].match(/^\s*/)[0].length;
  const ordered = /^\s*\d+[.)]\s/.test(lines[i]);
  const start = ordered ? Number(/^\s*(\d+)/.exec(lines[i])[1]) : null;
  const list = h(ordered ? 'ol' : 'ul', start && start !== 1 ? { start } : {});
  let item = null;
  let text = [];
  // An item's text comes first; text after a nested list (a continued item) is a paragraph of its own.
  const flushText = () => {
    if (text.length) item.append(...(item.lastElementChild?.matches('ul, ol') ? [h('p', {}, inline(text.join(' ')))] : inline(text.join(' '))));
    text = [];
  };
  const close = () => { if (item) { flushText(); list.append(item); item = null; } };
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      // A blank line ends the list unless the next line goes on with it (indented or a marker).
      const next = lines[i + 1] ?? '';
      const nextIndent = next.match(/^\s*/)[0].length;
      if (next.trim() && (nextIndent > indent || (nextIndent === indent && /^\s*([-*+]|\d+[.)])\s/.test(next)))) { i++; continue; }
      break;
    }
    const lead = line.match(/^\s*/)[0].length;
    const marker = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (marker && lead === indent) {
      close();
      item = h('li');
      text = [marker[2].trim()];
      i++;
    } else if (marker && lead > indent && item) {
      const [sub, next] = parseList(lines, i);
      flushText();
      item.append(sub);
      i = next;
    } else if (lead > indent && item) {
      text.push(line.trim());
      i++;
    } else break;
  }
  close();
  return [list, i];
}
