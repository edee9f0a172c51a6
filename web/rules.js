// rules.js: the "learn the game" views, loaded only when one opens: the rules page
// (#/rules/GAME[/SECTION]: the project's own rule book from /docs/, rendered by markdown.js, with
// a table of contents) and the card reference (#/cards/GAME: every card of GET /api/v1/cards
// with its full text, filtered by icon or domain, by cost or value, and by name). The games come
// from the server's rulesets; each game's module (games/index.js) names its rule book and shapes
// its cards; a game without a module gets its /docs/GAME.md, or a note, and a generic card list.

import { api, loadRulesets } from './api.js';
import { h, replace } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { gameModule, knownGames } from './games/index.js';
import { t, localDoc } from './i18n.js';

/** Game id `game` in words: "my_game" -> "My Game". */
const words = (game) => game.split('_').map((w) => (w[0]?.toUpperCase() ?? '') + w.slice(1)).join(' ');

/** A game's title: the rulesets' when known, else its id in words. */
function titleOf(game, rulesets) {
  return rulesets?.get(game)?.title ?? words(game);
}

/** The games to switch between: the server's rulesets (the page's own modules until they load). */
async function games() {
  try {
    const r = await loadRulesets();
    return r.byId;
  } catch {
    return new Map(knownGames.map((id) => [id, { id, title: words(id) }]));
  }
}

/** The views' common head: back to the lobby, the game switch, and the other view's link. */
function head(kind, game, rulesets) {
  const other = kind === 'rules' ? ['cards', t('Card reference')] : ['rules', t('Rules')];
  return h('header', { class: 'learn-head' },
    h('a', { href: '#/', class: 'back', id: 'learn-back' }, t('← Lobby')),
    h('nav', { class: 'game-switch', 'aria-label': t('Game') },
      [...rulesets.values()].map((r) => h('a', {
        href: `#/${kind}/${r.id}`, class: `button small ${r.id === game ? 'primary' : ''}`,
        'aria-current': r.id === game ? 'page' : false, 'data-game': r.id,
      }, r.title))),
    h('a', { href: `#/${other[0]}/${game}`, class: 'button small', id: `${other[0]}-link` }, other[1]));
}

/** Mounts the rules page of `game` in `root`, scrolled to `section` when given; returns a teardown. */
export function mountRules(root, game, section) {
  let alive = true;
  const body = h('div', { class: 'learn-body' }, h('p', { class: 'muted' }, t('Loading the rules…')));
  const view = h('section', { class: 'learn rules', id: 'rules', 'data-game': game });
  replace(root, view);
  games().then(async (rulesets) => {
    if (!alive) return;
    const title = titleOf(game, rulesets);
    document.title = t('Rules · {title}', { title });
    replace(view, head('rules', game, rulesets), body);
    let text = null;
    // Only a game this server hosts has a rule book to ask for (no 404 for a made-up name).
    if (rulesets.has(game)) {
      try {
        const doc = (await gameModule(game)).rules ?? `${encodeURIComponent(game)}.md`;
        // the rule book in the page's language where there is one (docs/LANG/), else English
        const ask = (path) => fetch(`/docs/${path}`, { headers: { Accept: 'text/markdown, text/plain' } });
        let r = localDoc(doc) === doc ? null : await ask(localDoc(doc)).catch(() => null);
        if (!r?.ok) r = await ask(doc);
        if (r.ok) text = await r.text();
      } catch { text = null; }
    }
    if (!alive) return;
    if (text === null) {
      replace(body, h('div', { class: 'panel' }, h('h1', {}, title),
        h('p', {}, t('This server has no rule book for {title} to show here.', { title })),
        h('p', {}, t('The card reference lists every card with its full text: '), h('a', { href: `#/cards/${game}` }, t('the cards of {title}', { title })), '.')));
      return;
    }
    const { fragment, headings } = renderMarkdown(text);
    const article = h('article', { class: 'panel md', id: 'rules-text' }, fragment);
    const toc = headings.length ? h('nav', { class: 'panel toc', id: 'toc', 'aria-labelledby': 'toc-title' },
      h('h2', { id: 'toc-title' }, t('Contents')),
      h('ol', {}, headings.map((x) => h('li', { class: `toc-${x.level}` },
        h('a', { href: `#/rules/${game}/${x.id}`, onclick: (e) => { e.preventDefault(); jump(x.id, true); } }, x.text))))) : null;
    replace(body, toc, article);
    if (section) jump(section, false);
  });

  function jump(id, record) {
    const el = view.querySelector(`#${CSS.escape(id)}`);
    if (!el) return;
    el.scrollIntoView({ block: 'start' });
    el.focus({ preventScroll: true });
    if (record) history.replaceState(null, '', `#/rules/${game}/${id}`); // no hashchange: no re-mount
  }
  return () => { alive = false; };
}

// ---- the card reference -----------------------------------------------------------------------

/** The shape of an unknown game's cards: what numbers and lists its catalog has. */
function genericShape(cards) {
  const numKey = ['cost', 'value'].find((k) => cards.some((c) => typeof c[k] === 'number'));
  const listKey = ['icons', 'tags'].find((k) => cards.some((c) => Array.isArray(c[k])));
  const values = listKey ? [...new Set(cards.flatMap((c) => c[listKey] ?? []))].sort().map((v) => [v, v]) : [];
  return {
    facet: listKey ? { label: listKey === 'icons' ? t('Icon') : t('Tag'), any: t('Any'), values, of: (c) => c[listKey] ?? [] } : null,
    num: numKey ? { label: numKey === 'cost' ? t('Cost') : t('Value'), any: t('Any'), of: (c) => c[numKey] } : null,
    facts: (c) => Object.entries(c).filter(([k, v]) => !['id', 'name', 'text'].includes(k) && ['number', 'string'].includes(typeof v)).map(([k, v]) => [k, String(v)]),
    kind: () => '',
  };
}

/** Mounts the card reference of `game` in `root`; returns a teardown. */
export function mountCards(root, game) {
  let alive = true;
  const view = h('section', { class: 'learn cards-ref', id: 'cards-ref', 'data-game': game }, h('p', { class: 'muted' }, t('Loading the cards…')));
  replace(root, view);
  const shapeOf = gameModule(game).then((m) => m.cards?.()).catch(() => null);
  Promise.all([games(), api.cards(game).then((d) => d, (e) => e), shapeOf]).then(([rulesets, data, known]) => {
    if (!alive) return;
    const title = titleOf(game, rulesets);
    document.title = t('Cards · {title}', { title });
    if (data instanceof Error) {
      replace(view, head('cards', game, rulesets), h('p', { class: 'error', role: 'alert' }, data.message));
      return;
    }
    const cards = data.cards ?? [];
    const shape = known ?? genericShape(cards);
    const total = cards.reduce((a, c) => a + (c.count ?? 1), 0);
    const search = h('input', { id: 'card-search', type: 'search', placeholder: t('Card name or text'), autocomplete: 'off', oninput: draw });
    const facet = shape.facet ? h('select', { id: 'card-icon', onchange: draw },
      h('option', { value: '' }, shape.facet.any), shape.facet.values.map(([v, t]) => h('option', { value: v }, t))) : null;
    const nums = shape.num ? [...new Set(cards.map(shape.num.of).filter((n) => typeof n === 'number'))].sort((a, b) => a - b) : [];
    const num = shape.num ? h('select', { id: 'card-cost', onchange: draw },
      h('option', { value: '' }, shape.num.any), nums.map((n) => h('option', { value: n }, String(n)))) : null;
    const count = h('p', { class: 'muted', id: 'card-count', 'aria-live': 'polite' });
    const list = h('ul', { class: 'ref-list', id: 'card-list' });
    const names = new Map(cards.map((c) => [c.id, c.name]));
    const items = cards.map((c) => ({ c, el: refCard(c, shape, (s) => names.get(s) ?? s), hay: `${c.name} ${c.text ?? ''}`.toLowerCase() }));
    list.append(...items.map((x) => x.el));
    replace(view, head('cards', game, rulesets),
      h('h1', {}, t('{title}: every card', { title })),
      h('p', { class: 'lead' }, t('{n} different cards, {total} in the deck. Filter them below; each shows its full text.', { n: cards.length, total })),
      h('form', { class: 'panel ref-filters', role: 'search', 'aria-label': t('Filter the cards'), onsubmit: (e) => e.preventDefault() },
        h('label', { class: 'field' }, h('span', {}, t('Name')), search),
        facet ? h('label', { class: 'field' }, h('span', {}, shape.facet.label), facet) : null,
        num ? h('label', { class: 'field' }, h('span', {}, shape.num.label), num) : null,
        h('button', { type: 'reset', class: 'ghost', id: 'card-reset', onclick: () => setTimeout(draw) }, t('Show all'))),
      count, list);
    draw();

    function draw() {
      const q = search.value.trim().toLowerCase();
      const f = facet?.value ?? '';
      const n = num?.value ?? '';
      let shown = 0;
      for (const x of items) {
        const ok = (!q || x.hay.includes(q)) && (!f || shape.facet.of(x.c).includes(f)) && (n === '' || shape.num.of(x.c) === Number(n));
        x.el.hidden = !ok;
        if (ok) shown++;
      }
      count.textContent = shown === items.length ? t('All {n} cards.', { n: items.length }) : t('{shown} of {n} cards.', { shown, n: items.length });
    }
  });
  return () => { alive = false; };
}

/** One card of the reference: name, its corner (cost or value), facts and full text. */
function refCard(c, shape, nm) {
  const corner = shape.num?.of(c);
  return h('li', { class: `ref-card kind-${shape.kind(c)} ${shape.kind(c)}`, 'data-slug': c.id, 'data-num': corner ?? '', 'data-facet': shape.facet ? shape.facet.of(c).join(' ') : '' },
    h('div', { class: 'ref-top' },
      h('h2', { class: 'ref-name' }, c.name),
      typeof corner === 'number' ? h('span', { class: 'cost-wrap', 'aria-hidden': 'true' }, String(corner)) : null),
    h('dl', { class: 'card-facts' }, shape.facts(c, nm).filter(Boolean).map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
    h('p', { class: 'ref-text' }, c.text || t('No special text.')));
}
