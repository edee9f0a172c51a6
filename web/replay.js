// replay.js: the replay viewer of a finished game (#/replay/ID, loaded only when opened): steps
// through GET /games/{id}/replay/rounds round by round with Previous/Next, a round slider and the
// arrow keys, showing every seat's score at the end of that round, the game's board at that round
// (its module's replay board: The City's tableaux and chart, Tech City's city grid), a score-by-
// round chart (The City's own; every other game's drawn from the rounds with the same chart),
// and the round's log lines, and the game's table talk (chat.js) below. Its last step is the
// final state. Move by move (Previous/Next move, Shift with the arrow keys), it walks every public
// event of the log in order, marking it in its round's log with that round's board and scores:
// the server keeps views at round boundaries only, so the board is the one the round ends with.
// A game this page has no module for is shown as its seats and scores.

import { api, store, rulesetOf, allEvents } from './api.js';
import { h, replace } from './dom.js';
import { seatDot, copyButton, replayUrl } from './ui.js';
import { standings, pointsKey, ordinal } from './standings.js';
import { gameModule } from './games/index.js';
import { chatTranscript } from './chat.js';
import { scoreChart } from './games/the_city/chart.js';

/** The lines of a round's log that are moves: all but the round headings. */
const MOVE_LINES = 'li:not(.log-head)';
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
  let moves = []; // every public event the logs show, in order: [{k (its round's step), seq}]
  let m = null; // the move shown (an index of moves), or null: a round is shown, no move
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
  let slider, prev, next, pos, scores, chartBox, boardBox, logBox, prevMove, nextMove, movePos;

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
    moves = data.rounds.flatMap((_, i) => {
      const list = roundLines(i);
      if (!list.length) return [];
      return [...board.log(list).querySelectorAll(MOVE_LINES)].map((li, j) => ({ k: i, seq: li.dataset.seq ?? `#${j}` }));
    });
    prevMove = h('button', { type: 'button', id: 'replay-prev-move', onclick: () => stepMove(-1) }, t('← Previous move'));
    nextMove = h('button', { type: 'button', id: 'replay-next-move', onclick: () => stepMove(1) }, t('Next move →'));
    movePos = h('span', { class: 'replay-move-pos muted', id: 'replay-move-pos' });
    replace(body,
      h('section', { class: 'panel replay-controls', 'aria-label': t('Replay controls') },
        h('div', { class: 'replay-nav' }, prev,
          h('label', { class: 'replay-range', for: 'replay-slider' }, h('span', { class: 'offscreen' }, t('Round')), slider),
          next),
        pos,
        moves.length ? h('div', { class: 'replay-moves', role: 'group', 'aria-label': t('Move by move') }, prevMove, movePos, nextMove) : null,
        h('p', { class: 'muted small-print replay-keys' }, t('Arrow keys ← → step through the rounds, with Shift move by move; Home and End jump to the start and the end.')),
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

  /** The public events of round step `i` (its log): the setup before round 1 at step 0. */
  function roundLines(i) {
    const entry = data.rounds[i];
    return events.filter((e) => (i === 0 ? !(e.round > 0) : e.round === entry.round));
  }

  /**
   * Steps `by` moves (1 or -1) from the move shown, or, with none, from the start of the round
   * shown (forward: its first move; back: the last move before it); shows that move's round and
   * marks the move in its log.
   */
  function stepMove(by) {
    if (!moves.length) return;
    let to;
    if (m !== null) to = m + by;
    else if (by > 0) to = moves.findIndex((x) => x.k >= k);
    else to = moves.findLastIndex((x) => x.k < k);
    if (to < 0 || to >= moves.length) return;
    m = to;
    if (moves[m].k !== k) show(moves[m].k, true);
    markMove();
  }

  /** Marks move m in the log shown (or no move when m is null) and says where it is. */
  function markMove() {
    for (const li of logBox.querySelectorAll('li.current')) { li.classList.remove('current'); li.removeAttribute('aria-current'); }
    prevMove.disabled = m === null ? !moves.some((x) => x.k < k) : m === 0;
    nextMove.disabled = m === null ? !moves.some((x) => x.k >= k) : m === moves.length - 1;
    root.querySelector('#replay').dataset.move = m === null ? '' : String(m);
    if (m === null) { movePos.textContent = `${moves.length} moves in all`; return; }
    const inRound = moves.filter((x) => x.k === k);
    const j = inRound.indexOf(moves[m]);
    const li = [...logBox.querySelectorAll(MOVE_LINES)][j];
    movePos.textContent = t('Move {m} of {all} ({j} of {round} this round; board as the round ends)', { m: m + 1, all: moves.length, j: j + 1, round: inRound.length });
    if (!li) return;
    li.classList.add('current');
    li.setAttribute('aria-current', 'step');
    li.scrollIntoView({ block: 'nearest' });
    live.textContent = t('Move {m}: {line}', { m: m + 1, line: li.textContent });
  }

  /** Every seat's score by round up to step `i`, for a game whose board draws no chart. */
  function roundsChart(i) {
    const first = data.rounds[0].view.seats;
    const key = pointsKey(data.game, first);
    const at = (entry, seat) => Number(entry.view.seats[seat]?.[key] ?? 0);
    return scoreChart(first.map((s) => ({
      name: nameOf(s.seat), start: at(data.rounds[0], s.seat), vp: at(data.rounds[i], s.seat),
      vp_by_round: data.rounds.slice(1, i + 1).map((e) => at(e, s.seat)),
    })), null, { unit });
  }

  /** Shows step `i` (clamped): entry i of the rounds; a move stays marked only `keepMove`. */
  function show(i, keepMove = false) {
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
    replace(chartBox, board.chart?.(v) ?? (v.seats?.length ? roundsChart(k) : null));
    replace(boardBox, board.draw(v) ?? h('p', { class: 'muted' }, t('This page cannot draw this game’s board; the scores are above.')));
    const lines = roundLines(k);
    replace(logBox, lines.length ? board.log(lines) : h('p', { class: 'muted' }, events.length ? t('Nothing logged.') : t('The log could not be loaded.')));
    logBox.scrollTop = 0;
    if (!keepMove) m = null;
    if (moves.length) markMove();
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
    if (e.shiftKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      e.preventDefault();
      stepMove(e.key === 'ArrowLeft' ? -1 : 1);
      return;
    }
    const to = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: data.rounds.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  }
  document.addEventListener('keydown', onKey);

  load();
  return () => { alive = false; document.removeEventListener('keydown', onKey); };
}

