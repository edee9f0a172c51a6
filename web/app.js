// app.js: the page's entry point: a hash router between the lobby (#/), a game's table
// (#/game/ID), a finished game's replay viewer (#/replay/ID, replay.js, loaded when opened),
// and the rules and card reference of a game (#/rules/GAME[/SECTION], #/cards/GAME, loaded with
// rules.js only when opened), mounting one view at a time and tearing the last one down (its live
// stream too). A table is the shell (table.js) around the part of the game's module
// (games/index.js gives the module of the view's `game`; the generic one for a game it does not
// know), both loaded when a table is first opened. The footer credits every game the server hosts.
// The optional account (account.js): the header's Sign in, #/signin, #/signup and #/account;
// rated play's pages (players.js, loaded when opened): #/players/NAME and #/leaderboard[/GAME].

import { t, LANGUAGES, language, setLanguage } from './i18n.js';
import { mountLobby } from './lobby.js';
import { api, loadRulesets, rulesetOf } from './api.js';
import { gameModule } from './games/index.js';
import { h, replace } from './dom.js';
import { mountAccountNav, mountSignIn, mountAccount, rememberPlace } from './account.js';

/** Adds stylesheet `href` once; resolves when it has loaded (or failed: the view still works). */
function styleSheet(href) {
  if (document.querySelector(`link[href="${href}"]`)) return Promise.resolve();
  return new Promise((ok) => {
    const link = h('link', { rel: 'stylesheet', href, onload: ok, onerror: ok });
    document.head.append(link);
  });
}

/**
 * Mounts the table of game `id`: the game's module is chosen by the view's `game`; when the view
 * cannot be read, the server's default game's (its table then says why).
 */
function mountTable(el, id, go) {
  let alive = true;
  let off = null;
  replace(el, h('p', { class: 'muted loading' }, t('Loading the table…')));
  // The table reads the game's descriptor (its title, score, ranking, event types): known first.
  const known = loadRulesets().catch(() => null);
  api.game(id).then((v) => v?.game ?? null, () => null).then(async (seen) => {
    await known;
    if (!alive) return;
    const game = seen ?? rulesetOf(null)?.id ?? null;
    try {
      const [shell, mod] = await Promise.all([import('./table.js'), gameModule(game)]);
      const [part] = await Promise.all([mod.table(), ...(mod.styles ?? []).map(styleSheet)]);
      if (alive) off = shell.mountTable(el, id, go, { game, mod, part });
    } catch {
      if (alive) replace(el, h('p', { class: 'error', role: 'alert' }, t('The table of this game could not be loaded; check your connection and reload.')));
    }
  });
  return () => { alive = false; off?.(); };
}

/** Mounts the rules page or the card reference (rules.js, loaded on first use). */
function mountLearn(el, kind, game, section) {
  let alive = true;
  let off = null;
  replace(el, h('p', { class: 'muted loading' }, kind === 'rules' ? t('Loading the rules…') : t('Loading the cards…')));
  import('./rules.js').then((m) => {
    if (alive) off = kind === 'rules' ? m.mountRules(el, game, section) : m.mountCards(el, game);
  }, () => {
    if (alive) replace(el, h('p', { class: 'error', role: 'alert' }, t('This page could not be loaded; check your connection and reload.')));
  });
  return () => { alive = false; off?.(); };
}

const root = document.getElementById('app');
let teardown = null;

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** Mounts the replay viewer of game `id` (replay.js and its sheet, loaded only now). */
function mountReplayView(el, id) {
  let alive = true;
  let off = null;
  replace(el, h('p', { class: 'muted loading' }, t('Loading the replay…')));
  Promise.all([import('./replay.js'), styleSheet('replay.css'), loadRulesets().catch(() => null)]).then(([m]) => {
    if (alive) off = m.mountReplay(el, id, styleSheet);
  }, () => {
    if (alive) replace(el, h('p', { class: 'error', role: 'alert' }, t('The replay viewer could not be loaded; check your connection and reload.')));
  });
  return () => { alive = false; off?.(); };
}

/** Mounts a profile or a leaderboard (players.js, loaded only now). */
function mountPlayers(el, kind, arg) {
  let alive = true;
  let off = null;
  replace(el, h('p', { class: 'muted loading' }, t('Loading…')));
  import('./players.js').then((m) => {
    if (alive) off = kind === 'player' ? m.mountProfile(el, arg) : m.mountLeaderboard(el, arg);
  }, () => {
    if (alive) replace(el, h('p', { class: 'error', role: 'alert' }, t('This page could not be loaded; check your connection and reload.')));
  });
  return () => { alive = false; off?.(); };
}

/** The player name of a #/players/NAME route, or null when it is not one. */
function playerOf(hash) {
  const p = /^#\/players\/([^/]{1,200})\/?$/.exec(hash);
  if (!p) return null;
  try { return decodeURIComponent(p[1]); } catch { return null; }
}

function route() {
  teardown?.();
  teardown = null;
  rememberPlace(location.hash);
  const m = /^#\/game\/([A-Za-z0-9_-]{1,64})\/?$/.exec(location.hash);
  const r = /^#\/replay\/([A-Za-z0-9_-]{1,64})\/?$/.exec(location.hash);
  const learn = /^#\/(rules|cards)\/([a-z0-9_]{1,40})(?:\/([a-z0-9-]{1,80}))?\/?$/.exec(location.hash);
  const acct = /^#\/(signin|signup|account)\/?$/.exec(location.hash);
  const player = playerOf(location.hash);
  const board = /^#\/leaderboard(?:\/([a-z0-9_]{1,40}))?\/?$/.exec(location.hash);
  document.body.dataset.view = m ? 'game' : r ? 'replay' : learn ? learn[1] : acct ? acct[1] : player ? 'player' : board ? 'leaderboard' : 'lobby';
  if (m) teardown = mountTable(root, m[1], navigate);
  else if (r) teardown = mountReplayView(root, r[1]);
  else if (learn) teardown = mountLearn(root, learn[1], learn[2], learn[3]);
  else if (acct) teardown = acct[1] === 'account' ? mountAccount(root, navigate) : mountSignIn(root, navigate, acct[1]);
  else if (player) teardown = mountPlayers(root, 'player', player);
  else if (board) teardown = mountPlayers(root, 'board', board[1] ?? null);
  else {
    document.title = t('City card games'); // the lobby puts the chosen game's title
    teardown = mountLobby(root, navigate);
  }
  root.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

/** The footer's credits: one line for each game the server hosts whose module has one. */
function creditGames() {
  const foot = document.querySelector('.site-foot');
  if (!foot) return;
  loadRulesets().then((d) => Promise.all(d.rulesets.map((r) => gameModule(r.id).catch(() => null)))).then((mods) => {
    foot.prepend(...mods.filter((x) => x?.credit).map((x) => h('span', { class: 'credit' }, x.credit)));
  }).catch(() => { /* no credits without the server's list */ });
}

/** The static page's own words (index.html is written in English) in the page's language. */
function sayStatic() {
  const set = (sel, text) => { const el = document.querySelector(sel); if (el) el.textContent = text; };
  set('.skip', t('Skip to the content'));
  set('.site-head .brand', t('City card games'));
  set('.site-foot a[href="/openapi.yaml"]', t('API'));
  document.getElementById('account-nav')?.setAttribute('aria-label', t('Account and leaderboards'));
}

/** The header's language switch: each language by its own name; choosing one reloads in place. */
function languageSwitch() {
  const head = document.querySelector('.site-head');
  if (!head) return;
  const sel = h('select', {
    id: 'language', class: 'language',
    onchange: () => setLanguage(sel.value),
  }, LANGUAGES.map(([code, name]) => h('option', { value: code, lang: code, selected: code === language() }, name)));
  head.append(h('label', { class: 'language-switch' }, h('span', { class: 'offscreen' }, t('Language')), sel));
}

window.addEventListener('hashchange', route);
document.querySelector('.skip')?.addEventListener('click', (e) => {
  e.preventDefault(); // a plain #app link would change the route
  root.focus();
});
const nav = document.getElementById('account-nav');
if (nav) mountAccountNav(nav);
sayStatic();
languageSwitch();
route();
creditGames();
