// players.js: the pages of rated play, loaded when one is opened: a player's profile
// (#/players/NAME: their rating in each game, shown as the cautious ordinal mu - 3 sigma, games
// played and won, and their recent games with the rating change and a link to each replay), and
// a game's leaderboard (#/leaderboard/GAME, the server's default game without one: rated
// players by rating, paged with More, people and bots marked, and the best solo scores), from
// GET /api/v1/players/{name} and GET /api/v1/leaderboard.

import { api, loadRulesets, store } from './api.js';
import { h, replace } from './dom.js';
import { inPlayersWords, changeWords, ratingWords } from './ui.js';
import { t, language } from './i18n.js';

const fmt = ratingWords;

/** A rated player's name as people read it: "bot:greedy" is "Greedy bot", "bot:expert-2" "Expert bot (2)". */
export function playerTitle(name) {
  const m = /^bot:([a-z]+)(?:-(.+))?$/.exec(name ?? '');
  if (!m) return name;
  const kind = t('{Kind} bot', { Kind: `${m[1][0].toUpperCase()}${m[1].slice(1)}` });
  return m[2] ? `${kind} (${m[2]})` : kind;
}

/** The mark of a bot among players; null for a person. */
function kindTag(kind) {
  return kind === 'bot' ? h('span', { class: 'tag bot-mark' }, t('bot')) : null;
}

/** A link to player `name`'s profile. */
function playerLink(name, kind) {
  return h('a', { href: `#/players/${encodeURIComponent(name)}`, class: 'player-link' }, playerTitle(name), kind ? ' ' : null, kindTag(kind));
}

/** An ISO date as a short date in words ("26 Nov 2026"). */
function dateWords(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString(language() === 'en' ? 'en-GB' : language(), { day: 'numeric', month: 'short', year: 'numeric' });
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th". */
function ordinalWords(n) {
  if (language() === 'de') return `${n}.`;
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${s}`;
}

/** The games' titles by id (the server's list), with a fallback to the id in words. */
async function titles() {
  const d = await loadRulesets().catch(() => null);
  const byId = d?.byId ?? new Map();
  return { default: d?.default ?? 'the_city', list: d?.rulesets ?? [], of: (id) => byId.get(id)?.title ?? (id ?? '').split('_').map((w) => (w[0]?.toUpperCase() ?? '') + w.slice(1)).join(' ') };
}

/** The note that says what the rating is. */
function ratingNote() {
  return h('p', { class: 'hint rating-note' }, t('A rating is the cautious estimate of skill, μ − 3σ: the skill μ less three times its uncertainty σ. It starts near 0 and rises as a player plays and wins rated games.'));
}

/** Mounts player `name`'s profile in `root`; returns a teardown function. */
export function mountProfile(root, name) {
  let alive = true;
  document.title = t('{name} · Player', { name: playerTitle(name) });
  replace(root, h('p', { class: 'muted loading' }, t('Loading the player…')));
  Promise.all([api.player(name), titles()]).then(([p, known]) => {
    if (!alive) return;
    const mine = store.session()?.name === p.name;
    replace(root, h('section', { class: 'players-page stack', 'aria-labelledby': 'player-title' },
      h('div', { class: 'panel' },
        h('h1', { id: 'player-title' }, playerTitle(p.name), ' ', kindTag(p.kind), mine ? h('span', { class: 'tag you' }, t('you')) : null),
        h('p', { class: 'lead', id: 'player-totals' }, `${p.played} game${p.played === 1 ? '' : 's'} played, ${p.won} won.`),
        mine ? h('p', {}, h('a', { href: '#/account', id: 'to-account' }, t('Your account'))) : null),
      h('section', { class: 'panel', 'aria-labelledby': 'ratings-title' },
        h('h2', { id: 'ratings-title' }, t('Ratings')),
        p.ratings.length ? h('div', { class: 'table-scroll' }, h('table', { class: 'data-table', id: 'ratings' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('Game')), h('th', { scope: 'col', class: 'num' }, t('Rating')),
            h('th', { scope: 'col', class: 'num' }, h('abbr', { title: t('skill μ ± uncertainty σ') }, 'μ ± σ')), h('th', { scope: 'col', class: 'num' }, t('Games')), h('th', { scope: 'col', class: 'num' }, t('Wins')))),
          h('tbody', {}, p.ratings.map((r) => h('tr', { 'data-game': r.game },
            h('th', { scope: 'row' }, h('a', { href: `#/leaderboard/${r.game}` }, known.of(r.game))),
            h('td', { class: 'num rating' }, fmt(r.ordinal)),
            h('td', { class: 'num' }, `${fmt(r.mu)} ± ${fmt(r.sigma)}`),
            h('td', { class: 'num' }, String(r.games)), h('td', { class: 'num' }, String(r.wins))))))) : h('p', { class: 'muted' }, t('No rated game yet.')),
        ratingNote()),
      h('section', { class: 'panel', 'aria-labelledby': 'recent-title' },
        h('h2', { id: 'recent-title' }, t('Recent games')),
        p.recent.length ? h('ul', { class: 'recent-list', id: 'recent' }, p.recent.map((g) => h('li', { class: 'recent-row', 'data-game': g.id },
          h('div', { class: 'recent-main' },
            h('span', { class: 'recent-title' }, known.of(g.game)),
            h('span', { class: 'muted' }, [dateWords(g.finished_at), g.players > 1 ? `${ordinalWords(g.place)} of ${g.players}` : 'solo'].filter(Boolean).join(' · ')),
            g.rated ? h('span', { class: `change ${g.change > 0 ? 'up' : g.change < 0 ? 'down' : ''}` }, `rating ${changeWords(g.change)}`) : h('span', { class: 'muted' }, 'unrated')),
          h('a', { class: 'button small', href: `#/replay/${g.id}`, 'aria-label': t('Replay of the {title} game of {date}', { title: known.of(g.game), date: dateWords(g.finished_at) }) }, t('Replay'))))) : h('p', { class: 'muted' }, t('No finished game yet.')))));
  }, (e) => {
    if (!alive) return;
    replace(root, h('section', { class: 'panel notice', 'aria-labelledby': 'player-title' },
      h('h1', { id: 'player-title' }, e.status === 404 ? t('No such player') : t('The player could not be read')),
      h('p', {}, e.status === 404 ? t("No player is called {name}. A deleted account's name is not shown.", { name }) : inPlayersWords(e)),
      h('a', { href: '#/', class: 'button primary' }, t('Back to the lobby'))));
  });
  return () => { alive = false; };
}

/** Mounts the leaderboard of `game` (null: the server's default game) in `root`; returns a teardown function. */
export function mountLeaderboard(root, game) {
  let alive = true;
  let next = null;
  replace(root, h('p', { class: 'muted loading' }, t('Loading the leaderboard…')));
  titles().then(async (known) => {
    const id = game ?? known.default;
    document.title = t('{title} · Leaderboard', { title: known.of(id) });
    let first;
    try {
      first = await api.leaderboard(id);
    } catch (e) {
      if (!alive) return;
      replace(root, h('section', { class: 'panel notice', 'aria-labelledby': 'board-title' },
        h('h1', { id: 'board-title' }, t('Leaderboard')),
        h('p', {}, e.code === 'bad_game' ? t('This server hosts no game called {id}.', { id }) : `${t('The leaderboard could not be read.')} ${inPlayersWords(e)}`),
        h('a', { href: '#/', class: 'button primary' }, t('Back to the lobby'))));
      return;
    }
    if (!alive) return;
    const body = h('tbody', {});
    const error = h('p', { class: 'error', role: 'alert', id: 'board-error', hidden: true });
    const more = h('button', { type: 'button', class: 'ghost', id: 'more-players', onclick: () => page() }, t('More players'));
    const status = h('p', { class: 'offscreen', role: 'status', id: 'board-status' });
    const add = (d) => {
      body.append(...d.players.map((r) => h('tr', { 'data-name': r.name, 'data-kind': r.kind },
        h('td', { class: 'num rank' }, String(r.rank)),
        h('th', { scope: 'row' }, playerLink(r.name, r.kind)),
        h('td', { class: 'num rating' }, fmt(r.ordinal)),
        h('td', { class: 'num' }, String(r.games)))));
      next = d.next ?? null;
      more.hidden = !next;
    };
    async function page() {
      if (!next) return;
      more.disabled = true;
      error.hidden = true;
      try {
        const d = await api.leaderboard(id, next);
        if (!alive) return;
        add(d);
        status.textContent = t('{n} more players shown.', { n: d.players.length });
      } catch (e) {
        if (alive) { error.textContent = `${t('More players could not be read.')} ${inPlayersWords(e)}`; error.hidden = false; }
      }
      more.disabled = false;
    }
    add(first);
    const solo = first.best_solo ?? [];
    replace(root, h('section', { class: 'players-page stack', 'aria-labelledby': 'board-title' },
      h('div', { class: 'panel' },
        h('h1', { id: 'board-title' }, t('Leaderboard: {title}', { title: known.of(id) })),
        known.list.length > 1 ? h('nav', { class: 'board-games', 'aria-label': t('Leaderboards of the other games') },
          known.list.map((r) => (r.id === id ? h('span', { class: 'button small current', 'aria-current': 'page' }, r.title)
            : h('a', { class: 'button small', href: `#/leaderboard/${r.id}` }, r.title)))) : null),
      h('section', { class: 'panel', 'aria-labelledby': 'rated-title' },
        h('h2', { id: 'rated-title' }, t('Rated players')),
        first.players.length ? [
          h('div', { class: 'table-scroll' }, h('table', { class: 'data-table', id: 'board' },
            h('caption', { class: 'offscreen' }, t('Rated players of {title}, best first', { title: known.of(id) })),
            h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num' }, t('Rank')), h('th', { scope: 'col' }, t('Player')),
              h('th', { scope: 'col', class: 'num' }, t('Rating')), h('th', { scope: 'col', class: 'num' }, t('Games')))),
            body)),
          h('p', { class: 'hint' }, t('People and bots are rated alike; bots are marked bot. Each bot and level is one player.')),
          error, more, status, ratingNote(),
        ] : h('p', { class: 'muted', id: 'board-empty' }, t('No rated game of {title} has finished yet.', { title: known.of(id) }))),
      h('section', { class: 'panel', 'aria-labelledby': 'solo-title' },
        h('h2', { id: 'solo-title' }, t('Best solo scores')),
        solo.length ? h('ol', { class: 'recent-list', id: 'best-solo' }, solo.map((s) => h('li', { class: 'recent-row' },
          h('div', { class: 'recent-main' }, playerLink(s.name, null),
            h('span', { class: 'solo-score' }, `${s.score} points`),
            h('span', { class: 'muted' }, dateWords(s.finished_at))),
          h('a', { class: 'button small', href: `#/replay/${s.id}`, 'aria-label': t("Replay of {name}'s solo game of {score} points", { name: playerTitle(s.name), score: s.score }) }, t('Replay')))))
          : h('p', { class: 'muted' }, t('No solo game of {title} by an account has finished yet.', { title: known.of(id) })))));
  });
  return () => { alive = false; };
}
