// replay.js: the replay viewer of a finished game (#/replay/ID, loaded only when opened): steps
// through GET /games/{id}/replay/rounds round by round with Previous/Next, a round slider and the
// arrow keys, showing every seat's score at the end of that round, the game's board at that round
// (its module's replay board: The City's tableaux and chart, Tech City's city grid) and the
// round's log lines, and the game's table talk (chat.js) below. Its last step is the final state. A game this page has no module for is
// shown as its seats and scores.

import { api, store, rulesetOf, allEvents } from './api.js';
import { h, replace } from './dom.js';
import { seatDot, copyButton, replayUrl } from './ui.js';
import { standings, pointsKey, ordinal } from './standings.js';
import { gameModule } from './games/index.js';
import { chatTranscript } from './chat.js';
import { t } from './i18n.js';

/**
 * Mounts the replay of game `id` in `root`; `styleSheet(href)` adds a sheet a game's board
 * needs. Returns a teardown function (it removes the key listener).
 */
export function mountReplay(root, id, styleSheet) {
  let alive = true;
  let data = null; // {game, players, rounds: [{round, view}]}
  let names = [];
  let bots = [];
  let events = [];
  let k = 0;
  let board = null; // the game's replay board: {title, draw(view), chart(view), log(events)}
  let unit = ''; // how a score is named: the module's score.short

  const bar = h('header', { class: 'table-bar', id: 'bar' },
    h('a', { href: '#/', class: 'back', 'aria-label': t('Back to the lobby') }, t('← Lobby')),
    h('div', { class: 'bar-title' }, h('h1', { id: 'replay-title' }, t('Replay')), h('span', { class: 'step-pill', id: 'replay-pill' }, t('Loading…'))));
  const body = h('div', { class: 'replay-body' }, h('p', { class: 'muted loading' }, t('Loading the replay…')));
  const live = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'replay-announce' });
  replace(root, h('section', { class: 'replay', id: 'replay', 'data-game': id, 'aria-labelledby': 'replay-title' }, bar, body, live));
  document.title = t('Replay');

  const nameOf = (seat) => names[seat] || `Seat ${seat + 1}`;
  const me = store.seat(id)?.seat ?? null; // this browser's seat in the game, if it played

  async function load() {
    try {
      const r = await api.replayRounds(id);
      const seats = r.seats ?? (await api.game(id)).seats; // the names come with the rounds
      names = seats.map((s) => s.name);
      bots = seats.map((s) => s.bot ?? null);
      data = r;
      data.rounds = [...r.rounds].sort((a, b) => a.round - b.round);
      if (!data.rounds.length) throw Object.assign(new Error(t('This replay has no rounds.')), { status: 0 });
      board = await boardFor(r.game);
      events = await allEvents(id).catch(() => []); // the log is a bonus: the replay works without it
    } catch (e) {
      if (!alive) return;
      const notYet = e.status === 409;
      replace(body, h('div', { class: 'panel notice', id: 'replay-error' },
        h('h2', {}, notYet ? t('This game is not over yet') : e.status === 404 ? t('No such game') : t('The replay could not be loaded')),
        h('p', {}, notYet ? t('Its replay opens once the game ends. Until then you can watch it live.') : e.message),
        h('div', { class: 'actions' },
          e.status === 404 ? null : h('a', { href: `#/game/${id}`, class: 'button primary' }, notYet ? t('Watch the game') : t('Open the table')),
          h('a', { href: '#/', class: 'button' }, t('Lobby')))));
      document.getElementById('replay-pill').textContent = notYet ? t('Not finished') : t('Unavailable');
      return;
    }
    if (!alive) return;
    build();
    show(0);
  }

  /** The board of game `game` from its module: how a round's view is drawn and its log written. */
  async function boardFor(game) {
    const mod = await gameModule(game);
    const [b] = await Promise.all([mod.replay(nameOf), ...(mod.styles ?? []).map(styleSheet)]);
    if (mod.className) root.querySelector('#replay').classList.add(mod.className);
    unit = mod.score?.short ?? t('pts');
    return b;
  }

  // ---- the stable parts, drawn once --------------------------------------------------------
  let slider, prev, next, pos, scores, chartBox, boardBox, logBox;

  function build() {
    const n = data.rounds.length;
    const game = data.game;
    const title = rulesetOf(game)?.title ?? game;
    document.getElementById('replay-title').textContent = t('Replay · {title}', { title });
    document.title = t('Replay · {title}', { title });
    prev = h('button', { type: 'button', id: 'replay-prev', onclick: () => show(k - 1), 'aria-label': t('Previous round') }, t('← Previous'));
    next = h('button', { type: 'button', id: 'replay-next', onclick: () => show(k + 1), 'aria-label': t('Next round') }, t('Next →'));
    slider = h('input', {
      type: 'range', id: 'replay-slider', min: 0, max: n - 1, step: 1, value: 0,
      oninput: (e) => show(Number(e.target.value)),
    });
    pos = h('p', { class: 'replay-pos', id: 'replay-pos' });
    scores = h('ol', { class: 'replay-scores', id: 'replay-scores', 'aria-label': t('Scores at this point') });
    chartBox = h('div', { class: 'replay-chart', id: 'replay-chart' });
    boardBox = h('div', { class: 'replay-board', id: 'replay-board' });
    logBox = h('div', { class: 'log replay-log', id: 'replay-log', tabindex: 0, 'aria-label': t('Log of this round') });
    replace(body,
      h('section', { class: 'panel replay-controls', 'aria-label': t('Replay controls') },
        h('div', { class: 'replay-nav' }, prev,
          h('label', { class: 'replay-range', for: 'replay-slider' }, h('span', { class: 'offscreen' }, t('Round')), slider),
          next),
        pos,
        h('p', { class: 'muted small-print replay-keys' }, t('Arrow keys ← → step through the rounds; Home and End jump to the start and the end.')),
        h('div', { class: 'replay-share' }, h('a', { href: `#/game/${id}`, class: 'button', id: 'replay-table' }, t('Final table')),
          copyButton(replayUrl(id), t('Copy link'), t('Copy link to this replay')))),
      h('div', { class: 'replay-grid' },
        h('section', { class: 'panel', 'aria-labelledby': 'replay-scores-title' }, h('h2', { id: 'replay-scores-title' }, t('Scores')), scores, chartBox),
        h('section', { class: 'panel replay-board-box', 'aria-labelledby': 'replay-board-title' },
          h('h2', { id: 'replay-board-title' }, board.title), boardBox),
        h('section', { class: 'panel log-box', 'aria-labelledby': 'replay-log-title' }, h('h2', { id: 'replay-log-title' }, t('This round’s log')), logBox),
        data.chat?.length ? h('section', { class: 'panel chat-box', 'aria-labelledby': 'replay-chat-title' },
          h('h2', { id: 'replay-chat-title' }, t('Table talk')), h('div', { class: 'chat-scroll', tabindex: 0, role: 'region', 'aria-label': t('Table talk of the game') }, chatTranscript(data.chat))) : null));
  }

  /** Shows step `i` (clamped): entry i of the rounds. */
  function show(i) {
    const n = data.rounds.length;
    k = Math.max(0, Math.min(n - 1, i));
    const entry = data.rounds[k];
    const v = entry.view;
    const last = k === n - 1;
    const label = k === 0 ? t('Before round 1') : (last ? t('End of round {n} · final scores', { n: entry.round }) : t('End of round {n}', { n: entry.round }));
    slider.value = String(k);
    slider.setAttribute('aria-valuetext', label);
    prev.disabled = k === 0;
    next.disabled = last;
    pos.textContent = `${label} (step ${k + 1} of ${n})`;
    root.querySelector('#replay').dataset.step = String(k);
    document.getElementById('replay-pill').textContent = label;
    live.textContent = label;
    drawScores(v, k > 0 ? data.rounds[k - 1].view : null, last);
    replace(chartBox, board.chart?.(v) ?? null);
    replace(boardBox, board.draw(v) ?? h('p', { class: 'muted' }, t('This page cannot draw this game’s board; the scores are above.')));
    const lines = events.filter((e) => (k === 0 ? !(e.round > 0) : e.round === entry.round));
    replace(logBox, lines.length ? board.log(lines) : h('p', { class: 'muted' }, events.length ? t('Nothing logged.') : t('The log could not be loaded.')));
    logBox.scrollTop = 0;
  }

  function drawScores(v, before, last) {
    const key = pointsKey(data.game, v.seats);
    const rows = standings({ ...v, game: data.game });
    replace(scores, v.seats.map((s) => {
      const gain = before ? s[key] - (before.seats[s.seat]?.[key] ?? 0) : 0;
      const r = rows.find((x) => x.seat === s.seat);
      const won = last && (v.winners ?? []).includes(s.seat);
      return h('li', { class: `replay-seat ${won ? 'won' : ''} ${s.seat === me ? 'me' : ''}`, 'data-seat': s.seat, 'data-score': s[key] ?? 0 },
        seatDot(s.seat),
        h('span', { class: 'rs-name' }, nameOf(s.seat), s.seat === me ? h('span', { class: 'tag you' }, t('you')) : null, bots[s.seat] ? h('span', { class: 'tag' }, t('{kind} bot', { kind: t(bots[s.seat]) })) : null,
          won ? h('span', { class: 'tag win' }, t('winner')) : null),
        h('span', { class: 'rs-place muted' }, last ? ordinal(r.place) : ''),
        h('span', { class: 'rs-score' }, `${s[key] ?? 0} ${unit}`),
        h('span', { class: 'rs-gain muted' }, gain ? `+${gain}` : ''));
    }));
  }

  function onKey(e) {
    if (!data || !slider || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target instanceof HTMLElement && e.target.closest('input, textarea, select, [contenteditable]')) return; // the slider steps itself
    const to = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: data.rounds.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  }
  document.addEventListener('keydown', onKey);

  load();
  return () => { alive = false; document.removeEventListener('keydown', onKey); };
}

