// table.js: the table shell every game's table shares, knowing no game: the live state of the
// game (live.js: views, the log from the event stream, joining, sending), the header bar (title,
// step, the game's figures, the step timer, Force for the host or once the time is up), the
// banner (no such game, cancelled, the waiting room, the end screen with its ranking, points
// breakdown and Play again, or "you are watching"), the seat tools, the log, the jump bar and the
// live regions, and the action panel's frame: the hand with its sort order and the marks on cards
// new to it, the choice already sent, Suggest's note. What differs per game comes from the game's
// part (web/games/ID.js `table`): its panels, its step names and figures, and what the action
// panel asks and sends.

import { api, createAndRemember, store, rulesetOf } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { liveGame, waitingRoom } from './live.js';
import { seatTools, closedNotice, isClosed, tickBanks } from './seats.js';
import { copyButton, replayUrl, helpLinks, joinNames, logList, inPlayersWords, changeWords, ratingWords, seatDot } from './ui.js';
import { standings, placeLine, rankingList, tieNote } from './standings.js';
import { jumpBar, logAnnouncer, fitNames, fitOnResize } from './access.js';
import { noticePending, noticeSwitches } from './notice.js';
import { placementWatcher } from './motion.js';
import { expertHints, samePoint } from './hints.js';
import { chatPanel } from './chat.js';
import { t, tn } from './i18n.js';

/** The key of a position {round, step, turn} (turn left out where a game has none): "2-build". */
export function positionKey(p) {
  return [p.round, p.step, p.turn].filter((x) => x !== undefined && x !== null).join('-');
}

/**
 * The seats of public view `v` that have a decision pending and have not sent it, other than
 * seat `me`: from the view's `pending` list where the game has one, else each seat's `pending`.
 */
export function waitingSeats(v, me) {
  const pending = Array.isArray(v.pending) ? v.pending : (v.seats ?? []).filter((s) => s.pending).map((s) => s.seat);
  return pending.filter((s) => s !== me && !v.seats?.[s]?.submitted);
}

/**
 * Which hand cards are new, seen again after a change. prev: the last result (or null); key:
 * the game's key of the moment a card stops being new when it changes (the step, or the seat's
 * pending point; null while it has none); ids: the hand's ids now. A card that came into the
 * hand since the last sight is new until the key changes from one it was new at. Returns {key,
 * ids, fresh}; the first sight marks nothing.
 */
export function nextSeen(prev, key, ids) {
  if (!prev || !Array.isArray(prev.ids) || !Array.isArray(prev.fresh)) return { key, ids, fresh: [] };
  const kept = prev.key && prev.key !== key ? [] : prev.fresh.filter((x) => ids.includes(x));
  const came = ids.filter((x) => !prev.ids.includes(x) && !kept.includes(x));
  return { key, ids, fresh: [...kept, ...came] };
}

/**
 * Mounts the table of game `id` in `root`. `game` is its ruleset id (null when unknown), `mod`
 * the game's module (web/games/index.js: className, score, breakdown are read here) and `part`
 * its table factory, what the module's table() resolved to. Returns a teardown function.
 *
 * part(ctx) is called once. ctx: {id, game, st (live.js's state: view, hand, me, events, busy,
 * refused ...), nameOf(seat), me() (this browser's seat or null), pending() (the hand's pending
 * point or null), hints (hints.js), samePoint, action (the panel element), alive(), announce(text),
 * drawIf(el, sig, draw), render(), drawAction(), send(body) (posts an order, positions included;
 * resolves to true when taken)}. It returns the game's share:
 * - panels: top, main, sideBefore, sideAfter (arrays of elements placed once), jump ([label,
 *   () => element, id] entries of the jump bar);
 * - words: opening ([heading, text] of the hand before the game starts), watching (the notice a
 *   watcher sees), stepLabel(view), pointText(point) ("round 2, build"), stats(view) (the bar's
 *   figures: [{label, value, title, emoji, aria}]), forceText(view, names, count, {tt, host}),
 *   endLead(view, winnerNames), rankExtra(view, seat) (elements after a seat in the ranking);
 * - the hand: card(c, opts, fresh) (a hand card's element), and optionally sorts ({key: label},
 *   with 'dealt'), sortHand(hand, key), freshKey(view, point) (cards are new until it changes;
 *   undefined: no marks now), freshText, notice() (an element atop the action panel, or null);
 * - action(point): {head, extra, buttons, cardOpts(c), hint, need, sent (the selection is the
 *   order sent), chosen (the order sent in words), handClass}; actionSig() (what else it reads);
 * - sync(point, changed) (every change; changed: a new pending point), draw() (its panels, every
 *   change), logLines(events, nameOf) ([{kind, seq, text}]), close() (optional).
 */
export function mountTable(root, id, navigate, { game, mod, part: makePart }) {
  const drawnSig = new WeakMap(); // the signature each element was last drawn from (drawIf)
  let chat = null; // table talk (chat.js), made once st exists
  const live = liveGame(id, () => render(), { onChat: (m) => chat?.add(m) });
  const { st } = live;
  chat = chatPanel(id, () => ({ me: st.me, conn: st.conn, status: st.view?.status }));
  let alive = true;
  let pointAt = null; // the key of the seat's pending point last seen ('none' without one)
  let endError = ''; // why Play again failed
  const force = { ask: null, error: '', errorAt: '', errorFrom: '' };
  const sortKey = `city.handSort.${game}`;
  let seen = readJson(sessionStorage, `city.seen.${id}`);
  let logDrawn = -1;
  const keep = { redraw: () => render() };
  const title = () => rulesetOf(game)?.title ?? game ?? t('Game');
  const nameOf = (seat) => live.nameOf(seat);
  const pending = () => st.hand?.pending ?? null;

  const bar = h('header', { class: 'table-bar', id: 'bar' });
  const banner = h('div', { id: 'banner' });
  const action = h('section', { class: 'panel action', id: 'action', 'aria-labelledby': 'action-title', tabindex: -1 });
  const logBox = h('section', { class: 'panel log-box', id: 'log-box', 'aria-labelledby': 'log-title' }, h('h2', { id: 'log-title' }, t('Log')));
  const logEl = h('div', { class: 'log', id: 'log', tabindex: 0, role: 'region', 'aria-label': t('Game log') });
  logBox.append(logEl);
  const said = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'announce' });
  const logNews = logAnnouncer();
  const pageError = h('p', { class: 'error', role: 'alert', id: 'page-error', hidden: true });
  const hints = expertHints(id, () => st.me, () => { if (alive) drawAction(); });
  const tools = seatTools({
    id, navigate, refresh: () => live.refresh(),
    read: () => ({ view: st.view, me: st.me, host: st.host, reclaim: st.reclaim ?? null, events: st.events.values(), nameOf }),
    reclaim: () => live.reclaim(),
    dropSeat: () => { Object.assign(st, { me: null, hand: null, notice: '' }); live.refresh(); },
  });

  const ctx = {
    id, game, st, nameOf, pending, hints, samePoint, action,
    me: () => st.me?.seat ?? null,
    alive: () => alive,
    announce,
    drawIf,
    render: () => render(),
    drawAction: () => drawAction(),
    /** Sends `body` as this seat's order (positions included); resolves to true when taken. */
    send: (body) => live.send(body, (ok) => announce(ok ? t('Your choice was sent.') : st.refused)),
  };
  const part = makePart(ctx);
  let sort = part.sorts?.[readText(localStorage, sortKey)] ? readText(localStorage, sortKey) : 'dealt';

  // On a phone the page reads: your decision, then the game's own panels; the jump bar brings
  // each up in one tap.
  const jump = jumpBar([
    [t('Your move'), () => (action.hidden ? banner : action), 'jump-move'],
    ...(part.jump ?? []),
    [t('Log'), () => logBox, 'jump-log'],
  ]);
  const grid = h('div', { class: 'table-grid' },
    h('div', { class: 'col-main' }, action, part.main),
    h('aside', { class: 'col-side' }, part.sideBefore, tools.el, part.sideAfter, logBox, chat.el, noticeSwitches()));
  replace(root, h('section', { class: `table ${mod.className ?? ''}`.trim(), 'data-game': id },
    bar, jump, pageError, banner, part.top, grid, said, logNews.region));
  const stopFit = fitOnResize(root);

  function announce(text) { said.textContent = text; }

  /**
   * Runs draw() only when `sig` differs from the last one drawn into `el`: a re-draw replaces
   * buttons, and a click or a Space press that straddles a replacement would be lost. The
   * signature stays in memory, never in the DOM (it may hold this browser's seat).
   */
  function drawIf(el, sig, draw) {
    const text = JSON.stringify(sig);
    if (drawnSig.get(el) === text && el.firstChild) return;
    draw();
    drawnSig.set(el, text);
  }

  const markPlaced = placementWatcher(root); // new cards on the table move in (motion.js)

  // ---- every change ------------------------------------------------------------------------
  function render() {
    if (!alive) return;
    chat.sync();
    const p = pending();
    const key = p ? positionKey(p) : 'none';
    const changed = !!st.view && key !== pointAt;
    if (changed && p && !st.hand.order) {
      const what = part.pointText(p);
      announce(t('Your move: {what}.', { what }));
      noticePending(t('{title}: your move', { title: title() }), t('Decide {what}.', { what }), `city-${id}`);
    }
    if (st.view) pointAt = key;
    part.sync?.(p, changed);
    markFresh();
    // No such game: only the notice and the way back, not a table's empty panels.
    grid.hidden = jump.hidden = st.missing;
    for (const el of [part.top].flat()) if (el) el.hidden = st.missing;
    keepFocus(root, () => {
      drawBar();
      drawBanner();
      tools.place(banner);
      drawAction();
      part.draw();
      drawLog();
      tools.update();
    });
    const message = st.error || st.notice;
    const showPageError = !!message && !st.missing && (action.hidden || !st.view) && st.view?.status !== 'finished' && !isClosed(st.view);
    pageError.hidden = !showPageError;
    pageError.textContent = showPageError ? message : '';
    document.title = `${p && !st.hand?.order ? `● ${t('Your move')} · ` : ''}${st.view?.round !== undefined ? `${t('Round {n}', { n: st.view.round })} · ` : ''}${title()}`;
    fitNames(root);
    markPlaced(!!st.view);
  }

  /** The hand's cards new since the game's key last changed (part.freshKey), kept for reloads. */
  function markFresh() {
    const v = st.view;
    if (!v || !st.me || !st.hand) return;
    const key = part.freshKey?.(v, pending());
    if (key === undefined) return;
    const next = nextSeen(seen, key, st.hand.hand.map((c) => c.id));
    if (JSON.stringify(next) === JSON.stringify(seen)) return;
    seen = next;
    try { sessionStorage.setItem(`city.seen.${id}`, JSON.stringify(seen)); } catch { /* private mode: marks last until a reload */ }
  }

  // ---- the header bar ----------------------------------------------------------------------
  function timerText() {
    const v = st.view;
    if (!v?.deadline || v.status !== 'playing') return null;
    const now = Date.now() / 1000;
    const clock = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
    // The step's own time first; past it, the time banks of the players still deciding.
    const own = Math.round((v.step_deadline ?? v.deadline) - now);
    if (own > 0) return t('{time} left', { time: clock(own) });
    const left = Math.round(v.deadline - now);
    if (left <= 0) return t('time is up');
    return t('time bank: {time} left', { time: clock(left) });
  }

  function drawBar() {
    const v = st.view;
    if (v) settleForce(v);
    const stats = v ? part.stats(v) : [];
    const tt = timerText();
    drawIf(bar, [v && [v.status, v.round, v.step, v.turn, waitingSeats(v, ctx.me()), part.stepLabel(v)], stats, !!tt, tt === t('time is up'),
      st.missing, !!st.host, !!st.me, force, st.busy, st.conn], () => drawBarNow(v, stats, tt));
  }

  function drawBarNow(v, stats, tt) {
    const back = h('a', { href: '#/', class: 'back', 'aria-label': t('Back to the lobby') }, t('← Lobby'));
    const links = game && !st.missing ? helpLinks(game) : null;
    if (!v) {
      replace(bar, back, h('span', { class: 'muted' }, st.missing ? '' : t('Loading the table…')), links);
      return;
    }
    const step = v.status === 'open' ? t('Waiting for players') : isClosed(v) ? (v.status === 'cancelled' ? t('Cancelled') : t('Expired'))
      : v.status === 'finished' ? t('Game over') : v.status === 'abandoned' ? t('Abandoned') : part.stepLabel(v);
    replace(bar, back,
      h('div', { class: 'bar-title' }, h('h1', { id: 'table-title' }, title()), h('span', { class: 'step-pill', id: 'step' }, step)),
      links,
      stats.length ? h('dl', { class: 'stats' }, stats.map(stat)) : null,
      tt ? h('span', { class: `timer ${tt === t('time is up') ? 'late' : ''}`, id: 'timer', role: 'timer' }, h('span', { class: 'emoji', 'aria-hidden': 'true' }, '⏱️ '), tt) : null,
      forceControls(v, tt),
      force.error ? h('p', { class: 'error force-error', role: 'alert', id: 'force-error' }, force.error) : null,
      h('span', { id: 'conn', class: `conn ${st.conn}`, role: 'status', hidden: st.conn !== 'down' }, st.conn === 'down' ? t('Reconnecting…') : ''));
  }

  /** One figure of the bar: {label, value, title, emoji (drawn in the emoji font), aria}. */
  function stat(s) {
    const value = s.title || s.emoji ? h('span', { class: s.emoji ? 'emoji' : null, title: s.title, 'aria-label': s.aria }, s.value) : String(s.value ?? '—');
    return h('div', { class: 'stat' }, h('dt', {}, s.label), h('dd', {}, value));
  }

  // ---- Force -------------------------------------------------------------------------------
  /**
   * Force is offered to a seat only where a timer exists and has run out (the server refuses it
   * before), and to the host while a person other than this browser's seat keeps the step
   * waiting (never for bots alone: solo against bots there is nobody to force); either way only
   * after a confirmation. The first click
   * remembers the position shown; the request names it, so a confirmation that lands after it
   * resolved is refused (409 stale_step) and never forces the next one.
   */
  function forceControls(v, tt) {
    const waiting = waitingSeats(v, ctx.me());
    const people = waiting.filter((s) => !v.seats?.[s]?.bot);
    if (v.status !== 'playing' || !waiting.length || !((st.host && people.length) || (st.me && tt === t('time is up')))) return null;
    if (!force.ask) {
      return h('button', {
        type: 'button', class: 'ghost small', id: 'force', 'data-focus-key': 'force', onclick: askForce, disabled: st.busy,
        title: t('Resolve the step now: whoever has not chosen gets the default decision'),
      }, st.host ? t('Force step') : t('Apply defaults'));
    }
    return h('div', { class: 'force-ask', id: 'force-ask', role: 'alertdialog', 'aria-labelledby': 'force-q' },
      h('span', { id: 'force-q' }, part.forceText(v, joinNames(waiting.map(nameOf)), waiting.length, { tt, host: !!st.host })),
      h('button', { type: 'button', class: 'small danger', id: 'force-yes', 'data-focus-key': 'force-yes', onclick: doForce, disabled: st.busy }, st.host ? t('Force it') : t('Apply defaults')),
      h('button', { type: 'button', class: 'ghost small', id: 'force-no', 'data-focus-key': 'force-no', onclick: cancelForce }, t('Cancel')));
  }

  /** Drops a question or an error that belongs to a position the game has left. */
  function settleForce(v) {
    const here = positionKey(v);
    if (force.error && !force.errorAt && force.errorFrom && here !== force.errorFrom) force.errorAt = here;
    if (force.error && force.errorAt && force.errorAt !== here) force.error = '';
    if (force.ask && positionKey(force.ask) !== here) {
      force.ask = null; // the step moved on while the question was open: nothing to force
      force.error = t('The step you were about to force has already been resolved; nothing was forced.');
      force.errorAt = here;
    }
  }

  function askForce() {
    const v = st.view;
    if (!v || st.busy) return;
    force.ask = v.turn === undefined ? { round: v.round, step: v.step } : { round: v.round, step: v.step, turn: v.turn };
    force.error = '';
    drawBar();
    bar.querySelector('#force-yes')?.focus();
  }

  function cancelForce() {
    force.ask = null;
    drawBar();
    bar.querySelector('#force')?.focus();
  }

  async function doForce() {
    const token = st.host ?? st.me?.token;
    const ask = force.ask;
    if (!token || !ask || st.busy) return;
    st.busy = true;
    Object.assign(force, { ask: null, error: '', errorAt: '' });
    drawBar();
    let stale = false;
    try {
      await api.resolve(id, token, ask);
      announce(t('The step was forced.'));
    } catch (e) {
      force.error = inPlayersWords(e); // 409 stale_step says the step had moved on: nothing forced
      stale = e.status === 409;
      announce(force.error);
    }
    st.busy = false;
    // A stale Force's error stays through the position the game moved on to, which this page
    // may not have seen yet (a newer refresh may still be on its way): settleForce binds it to
    // the first position it sees after the one asked. Any other error binds to the one shown.
    force.errorFrom = stale ? positionKey(ask) : '';
    await live.refresh();
    if (force.error && st.view && !stale) force.errorAt = positionKey(st.view);
  }

  // ---- the banner and the end screen -------------------------------------------------------
  function drawBanner() {
    const v = st.view;
    if (st.missing) {
      drawIf(banner, ['missing', st.error], () => replace(banner, h('div', { class: 'panel notice' },
        h('h2', {}, t('No such game')), h('p', {}, st.error || t('This game does not exist.')),
        h('a', { href: '#/', class: 'button primary' }, t('Back to the lobby')))));
    } else if (!v) {
      replace(banner);
      drawnSig.delete(banner);
    } else if (isClosed(v)) {
      drawIf(banner, ['closed', v.status], () => replace(banner, closedNotice(v)));
    } else if (v.status === 'open') {
      // Re-drawn only when something in it changed, so typing a name is never interrupted.
      drawIf(banner, ['open', v.seats.map((x) => [x.name, x.bot]), st.me?.seat ?? null, st.joinError, st.joining],
        () => replace(banner, waitingRoom(live, id, keep)));
    } else if (v.status === 'finished') {
      drawIf(banner, ['end', v.winners, standings(v), v.seats.map((x) => [x.name, x.bot]), st.me?.seat ?? null, endError, v.ratings ?? null], () => replace(banner, endScreen(v)));
    } else {
      drawIf(banner, ['play', !!st.me], () => replace(banner, st.me ? null : h('div', { class: 'panel notice slim' }, h('p', {}, part.watching))));
    }
  }

  function endScreen(v) {
    const winners = v.winners ?? [];
    const names = winners.map(nameOf);
    const me = ctx.me();
    const rows = standings(v);
    const place = me !== null ? placeLine(rows, me) : null;
    const iWon = me !== null && winners.includes(me);
    const again = h('button', { type: 'button', class: 'primary', id: 'play-again', 'data-focus-key': 'again', onclick: (e) => playAgain(e.currentTarget) }, t('Play again'));
    return [h('div', { class: 'panel end-screen', id: 'end-screen', role: 'region', 'aria-labelledby': 'end-title' },
      h('div', { class: 'trophy emoji', 'aria-hidden': 'true' }, '🏆'),
      h('div', { class: 'end-main' }, h('div', { class: 'end-text' },
        h('h2', { id: 'end-title' }, iWon ? (winners.length > 1 ? t('You share the win!') : t('You win!'))
          : winners.length > 1 ? t('{names} share the win', { names: joinNames(names) }) : t('{name} wins', { name: names[0] ?? t('Nobody') })),
        place ? h('p', { class: 'place', id: 'place' }, `${place}.`) : null,
        h('p', { class: 'lead', id: 'winners' }, part.endLead(v, names)),
        h('div', { class: 'actions' }, again, h('a', { href: `#/replay/${id}`, class: 'button', id: 'watch-replay' }, t('Watch the replay')),
          copyButton(replayUrl(id), t('Copy link'), t('Copy link to the replay')), h('a', { href: '#/', class: 'button' }, t('Lobby'))),
        endError ? h('p', { class: 'error', role: 'alert' }, endError) : null),
      h('div', { class: 'end-rank' }, rankingList(rows, (r) => part.rankExtra(v, r.seat), { winners, me, nameOf }), tieNote(v)))),
    ratingsBox(v, me),
    mod.breakdown ? breakdownBox(v) : null];
  }

  /**
   * A rated game's rating changes (the view's `ratings`, after-values, one per seat): each
   * player's new rating (the ordinal mu - 3 sigma) and its change, this browser's seat first and
   * marked; null for an unrated game.
   */
  function ratingsBox(v, me) {
    if (!v.rated || !Array.isArray(v.ratings) || !v.ratings.length) return null;
    const list = [...v.ratings].sort((a, b) => (a.seat === me ? -1 : b.seat === me ? 1 : a.seat - b.seat));
    const mine = v.ratings.find((r) => r.seat === me);
    return h('section', { class: 'panel end-ratings', id: 'end-ratings', 'aria-labelledby': 'end-ratings-title' },
      h('h2', { id: 'end-ratings-title' }, t('Ratings')),
      mine ? h('p', { class: 'lead', id: 'my-rating' }, t('Your rating is now {rating} ({change}).', { rating: ratingWords(mine.ordinal), change: changeWords(mine.change) })) : null,
      h('ul', { class: 'rating-list' }, list.map((r) => h('li', { class: `rating-row ${r.seat === me ? 'me' : ''}`, 'data-seat': r.seat },
        seatDot(r.seat),
        h('a', { href: `#/players/${encodeURIComponent(r.player)}`, class: 'rating-name' }, nameOf(r.seat) ?? r.player),
        r.seat === me ? h('span', { class: 'tag you' }, t('you')) : null,
        h('span', { class: 'rating-now' }, ratingWords(r.ordinal)),
        h('span', { class: `change ${r.change > 0 ? 'up' : r.change < 0 ? 'down' : ''}` }, changeWords(r.change))))),
      h('p', { class: 'hint' }, t('A rating is the cautious estimate μ − 3σ; the change is what this game moved it.')));
  }

  /**
   * The end screen's "Points breakdown" section: drawn at once with a loading line, filled by
   * end.js (loaded only now) with the rows the game's module traces (mod.breakdown).
   */
  function breakdownBox(v) {
    const body = h('div', { class: 'bd-body' }, h('p', { class: 'muted' }, t('Adding up the points…')));
    const box = h('section', { class: 'panel points-breakdown', id: 'breakdown', 'aria-labelledby': 'breakdown-title' },
      h('h2', { id: 'breakdown-title' }, t('Points breakdown')), body);
    import('./end.js').then((m) => m.fillBreakdown(box, { mod, id, v, names: nameOf, me: ctx.me() }))
      .catch(() => replace(body, h('p', { class: 'muted' }, t('The points breakdown could not be loaded; check your connection and reload.'))));
    return box;
  }

  /** A new game like this one: the settings it was created with here, else what its view says. */
  async function playAgain(btn) {
    const v = st.view;
    const options = {};
    for (const o of rulesetOf(game)?.options ?? []) if (typeof v[o.name] === 'number') options[o.name] = v[o.name];
    const settings = store.settings(id) ?? {
      seats: v.players, bots: v.seats.filter((s) => s.bot).map((s) => s.bot), kinds: v.seats.map((s) => s.bot ?? 'person'),
      options, turn_seconds: v.turn_seconds, bot_level: v.bot_level,
    };
    settings.game = game;
    settings.name = (st.me ? v.seats[st.me.seat]?.name : null) || store.name() || t('Player');
    btn.disabled = true;
    try {
      navigate(`#/game/${await createAndRemember(settings)}`);
    } catch (e) {
      btn.disabled = false;
      endError = inPlayersWords(e);
      render();
    }
  }

  // ---- the action panel ---------------------------------------------------------------------
  function setSort(by) {
    sort = part.sorts?.[by] ? by : 'dealt';
    try { localStorage.setItem(sortKey, sort); } catch { /* kept for this page only */ }
    drawAction();
  }

  // A press on the decision panel (a pointer, or Space on a button) holds the panel's redraws
  // until it ends: a redraw replaces the buttons, and a press that straddles one makes no click
  // (news arriving under the player's finger, a bot's move, took a Suggest or a Confirm). The
  // held redraw runs right after the press's click; a press held past 3 s lets it through.
  let pressed = 0;
  let held = false;
  const releasePress = () => {
    if (!pressed) return;
    pressed = 0;
    setTimeout(() => { if (held && !pressed && alive) { held = false; drawAction(); } }, 0); // after the click
  };
  const onPressKeyUp = (e) => { if (e.key === ' ') releasePress(); };
  action.addEventListener('pointerdown', () => { pressed = Date.now(); }, true);
  action.addEventListener('keydown', (e) => { if (e.key === ' ' && e.target.closest?.('button')) pressed = Date.now(); }, true);
  window.addEventListener('pointerup', releasePress, true);
  window.addEventListener('pointercancel', releasePress, true);
  window.addEventListener('keyup', onPressKeyUp, true);
  window.addEventListener('blur', releasePress);

  function drawAction() {
    if (pressed && Date.now() - pressed < 3000) { held = true; return; }
    const v = st.view;
    drawIf(action, [v?.status, v && waitingSeats(v, null), st.hand, st.busy, st.refused, st.error, st.me?.seat, sort, seen, hints.sig(), part.actionSig()],
      () => keepFocus(action, drawActionNow, action));
  }

  /**
   * The frame of the seat's decision: the game's part fills the head, the buttons and each
   * card's state (part.action(p) for a pending point p); the frame adds the choice already
   * sent, the errors, the hand in its order with its new cards, and Suggest's note.
   */
  function drawActionNow() {
    const v = st.view;
    const hand = st.hand;
    const ended = !!v && (v.status === 'finished' || v.status === 'abandoned' || isClosed(v));
    // No move to make for good (watching, or the game ended), not only until the hand loads:
    // the grid games then give the city the move's column (grid.css).
    grid.toggleAttribute('data-no-move', !!v && (!st.me || ended));
    if (!v || !st.me || !hand || ended) {
      action.hidden = true;
      replace(action);
      Object.assign(action.dataset, { state: 'waiting', turn: 'none', submitted: 'false', busy: 'false', need: '' });
      action.classList.remove('your-move');
      return;
    }
    action.hidden = false;
    const p = pending();
    const a = p ? part.action(p) : idle(v);
    const head = [part.notice?.() ?? null, ...a.head];
    if (p && hand.order) {
      // After a choice is in, the confirm button is an update: it reads "Change my choice" and
      // is live once the selection differs from what was sent.
      const again = a.buttons.find((b) => b?.id === 'confirm');
      if (again) {
        again.textContent = t('Change my choice');
        again.disabled = again.disabled || !!a.sent;
      }
      head.push(h('p', { class: 'submitted-note', id: 'submitted' },
        `${a.chosen ? t('Your choice is in: {chosen}.', { chosen: a.chosen }) : t('Your choice is in.')} ${again ? t('You can change it until everyone has chosen: pick again, then press “Change my choice”.') : t('You can change it until everyone has chosen: make another choice.')} ${t('Waiting for the others…')}`));
    }
    const key = part.freshKey?.(v, p);
    const fresh = new Set(key !== undefined && seen?.key === key ? seen.fresh : []);
    const mine = hand.hand ?? [];
    const cards = (part.sortHand?.(mine, sort) ?? mine).map((c) => part.card(c, a.cardOpts(c), fresh.has(c.id)));
    const error = st.refused || st.error;
    replace(action,
      h('div', { class: 'action-head' }, head),
      a.extra ?? null,
      a.hint ? h('p', { class: 'hint-line', role: 'status' }, a.hint) : null,
      error ? h('p', { class: 'error', role: 'alert', id: 'action-error' }, error) : null,
      mine.length && part.sorts ? h('div', { class: 'hand-tools' },
        h('label', { class: 'hand-sort' }, h('span', {}, t('Sort by')),
          h('select', { id: 'hand-sort', 'data-focus-key': 'hand-sort', onchange: (e) => setSort(e.target.value) },
            Object.entries(part.sorts).map(([k, t]) => h('option', { value: k, selected: k === sort }, t)))),
        fresh.size ? h('span', { class: 'muted', id: 'new-count' }, `${tn(fresh.size, '{count} new card', '{count} new cards')} ${part.freshText}`) : null) : null,
      h('div', { class: `hand ${a.handClass ?? ''}`.trim(), id: 'hand', role: 'group', 'aria-label': tn(mine.length, 'Your hand, {count} card', 'Your hand, {count} cards') }, cards),
      a.buttons.length ? h('div', { class: 'actions sticky' }, a.buttons) : null,
      hints.note(p));
    Object.assign(action.dataset, {
      state: p ? p.step : 'waiting', turn: p ? positionKey(p) : 'none', submitted: hand.order ? 'true' : 'false',
      busy: st.busy ? 'true' : 'false', need: a.need ?? '',
    });
    action.classList.toggle('your-move', !!p && !hand.order);
  }

  /** The action panel without a pending point: the hand, and whom the game waits for. */
  function idle(v) {
    const waiting = v.status === 'playing' ? waitingSeats(v, null).map(nameOf) : [];
    const [heading, text] = v.status === 'open' ? part.opening
      : [t('Your hand'), waiting.length ? t('Waiting for {names}…', { names: joinNames(waiting) }) : t('Nothing to decide right now.')];
    return {
      head: [h('h2', { id: 'action-title' }, heading), h('p', { class: v.status === 'open' ? null : 'muted' }, text)],
      buttons: [], cardOpts: () => ({ disabled: true }),
    };
  }

  // ---- the log -------------------------------------------------------------------------------
  function drawLog() {
    if (st.events.size === logDrawn) return;
    logDrawn = st.events.size;
    const atBottom = logEl.scrollHeight - logEl.scrollTop - logEl.clientHeight < 40;
    const events = [...st.events.values()].sort((a, b) => a.seq - b.seq);
    replace(logEl, logList(part.logLines(events, nameOf)));
    logNews.update(logEl);
    if (atBottom || !logEl.dataset.scrolled) { logEl.scrollTop = logEl.scrollHeight; logEl.dataset.scrolled = '1'; }
  }

  const tick = setInterval(() => {
    const el = bar.querySelector('#timer');
    const tt = timerText();
    if (el && tt) el.lastChild.textContent = tt;
    if (tt === t('time is up') && st.me && !bar.querySelector('#force, #force-ask')) drawBar();
    tickBanks(root);
  }, 1000);

  render();
  return () => {
    alive = false;
    window.removeEventListener('pointerup', releasePress, true);
    window.removeEventListener('pointercancel', releasePress, true);
    window.removeEventListener('keyup', onPressKeyUp, true);
    window.removeEventListener('blur', releasePress);
    clearInterval(tick);
    stopFit();
    live.close();
    chat.close();
    part.close?.();
  };
}

function readText(storage, key) {
  try { return storage.getItem(key); } catch { return null; }
}

function readJson(storage, key) {
  try { return JSON.parse(storage.getItem(key) ?? 'null'); } catch { return null; }
}
