// game.js: the table of one game: the waiting room and join form, your hand and your move (build
// with a pre-selected payment, contractor, Construction Gang's double build, survey, and the
// keep / survey / hand_limit discard dialogs), everyone's tableau and score, the log, the score
// chart and the end screen. Kept live by the game's Server-Sent Events stream.

import { api, createAndRemember, store, streamUrl, listenToLog } from './api.js';
import { card, cardButton, cheapest, tableauChip, doublePlanner, blocked, loadCatalog, DOUBLE_MAX_COST, HAND_SORTS, HAND_SORT_KEY, savedHandSort, sortHand } from './cards.js';
import { showCardInfo, closeCardInfo, infoButton } from './cardinfo.js';
import { h, replace, keepFocus } from './dom.js';
import { scoreChart } from './chart.js';
import { renderLog } from './log.js';
import { shareBox, seatDot, copyButton, replayUrl, helpLinks, joinNames } from './ui.js';
import { standings, placeLine, rankingList, breakdownBox, tieNote } from './standings.js';
import { jumpBar, logAnnouncer, fitNames, fitOnResize } from './access.js';
import { noticePending, noticeSwitches } from './notice.js';
import { seatTools, closedNotice, isClosed, botMark } from './seats.js';

const STEP_NAMES = { keep: 'keep', build: 'build', survey: 'survey', hand_limit: 'hand limit', over: 'game over' };
const ENDED_BY = {
  target: (v) => `a player reached the target of ${v.target_vp} VP`,
  deck: () => 'the deck could not pay everyone\'s income',
  rounds: () => 'the round limit was reached',
};
/** Mounts the table of game `id` in `root`; returns a teardown function. */
export function mountGame(root, id, navigate) {
  // The signature each element was last drawn from (drawIf), kept in memory and never in the
  // DOM: a signature may hold this browser's seat, and tokens stay out of the page.
  const drawnSig = new WeakMap();
  const st = {
    view: null, hand: null, me: store.seat(id), host: store.host(id),
    events: new Map(), eventsDrawn: -1,
    sel: emptySel(), turnKey: null, hint: '', error: '', actionError: '', notice: '', busy: false,
    conn: 'connecting', missing: false, joinError: '', joining: false,
    forceAsk: null, forceError: '', forceErrorAt: '', // the step a Force asks to confirm; why one failed, and at which step
    forceErrorFrom: '', // a stale Force's step: its error binds to the first step seen after it
    refused: '', // why the last choice sent was refused: kept across steps until the next action
    suggested: null, // the suggestion the selection shows (Suggest was pressed), else null
    sort: savedHandSort(), // the hand's order: dealt, cost, name or icon
    seen: loadSeen(), // {key: the game's step, ids: hand ids held then, fresh: ids new in it}
  };
  let alive = true;
  let es = null;
  let refreshGen = 0;
  let debounce = null;
  let firstScheduled = 0;
  let reopenTimer = null;
  let joinInput = null; // kept across re-draws: what was typed stays
  // Suggest's expert hints (hints.js) load with the table, not the lobby: a repeat visit of the
  // lobby revalidates every module it imports. Until they are here, Suggest is the quick one.
  let hints = null;
  let samePoint = null;
  import('./hints.js').then((m) => {
    if (!alive) return;
    hints = m.expertHints(id, () => st.me, () => { if (alive) drawAction(); });
    samePoint = m.samePoint;
    drawAction();
  }).catch(() => null);

  // ---- the stable skeleton -----------------------------------------------------------------
  const bar = h('header', { class: 'table-bar', id: 'bar' });
  const banner = h('div', { id: 'banner' });
  const action = h('section', { class: 'panel action', id: 'action', 'aria-labelledby': 'action-title', tabindex: -1 });
  const players = h('section', { class: 'players', id: 'players', 'aria-label': 'Players' });
  const chartBox = h('section', { class: 'panel chart-box', id: 'chart', 'aria-labelledby': 'chart-title' });
  const logList = h('div', { class: 'log', id: 'log', tabindex: 0, role: 'region', 'aria-label': 'Game log' });
  const logBox = h('section', { class: 'panel log-box', id: 'log-box', 'aria-labelledby': 'log-title' },
    h('h2', { id: 'log-title' }, 'Log'), logList);
  const live = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'announce' });
  const logNews = logAnnouncer();
  const pageError = h('p', { class: 'error', role: 'alert', id: 'page-error', hidden: true });
  // On a phone the page reads: your decision, your tableau, the others, then the chart and the
  // log, which the jump bar brings up in one tap.
  const jump = jumpBar([
    ['Your move', () => (action.hidden ? banner : action), 'jump-move'],
    ['Players', () => players, 'jump-players'],
    ['Log', () => logBox, 'jump-log'],
  ]);

  const tools = seatTools({
    id, navigate, refresh: () => refresh(),
    read: () => ({ view: st.view, me: st.me, host: st.host, events: st.events.values(), nameOf }),
    dropSeat: () => { st.me = null; st.hand = null; st.notice = ''; refresh(); },
  });
  replace(root, h('section', { class: 'table', 'data-game': id },
    bar, jump, pageError, banner,
    h('div', { class: 'table-grid' },
      h('div', { class: 'col-main' }, action, players),
      h('aside', { class: 'col-side' }, tools.el, chartBox, logBox, noticeSwitches())),
    live, logNews.region));
  const stopFit = fitOnResize(root);
  let stepSaid = null; // the step whose "whose turn" line was said last

  // ---- data --------------------------------------------------------------------------------
  async function refresh() {
    const gen = ++refreshGen;
    firstScheduled = 0;
    try {
      const me = st.me;
      let refused = '';
      const [v, hand] = await Promise.all([
        api.game(id),
        me ? api.hand(id, me.token).catch((e) => {
          if (e.status !== 401 && e.status !== 403) throw e;
          refused = e.message; // the token is no good here: watch instead
          return null;
        }) : Promise.resolve(null),
      ]);
      if (!alive || gen !== refreshGen) return;
      if (refused && st.me === me) {
        store.forgetSeat(id);
        st.me = null;
        st.notice = `${refused} You are watching this game instead.`;
      }
      st.view = v;
      st.hand = hand;
      st.error = '';
      markFresh();
      syncTurn();
    } catch (e) {
      if (!alive || gen !== refreshGen) return;
      if (e.status === 404) st.missing = true;
      st.error = e.message;
    }
    render();
  }

  function scheduleRefresh() {
    const now = Date.now();
    if (!firstScheduled) firstScheduled = now;
    clearTimeout(debounce);
    const wait = now - firstScheduled > 600 ? 0 : 120;
    debounce = setTimeout(refresh, wait);
  }

  function openStream() {
    if (!alive || (st.view?.status === 'finished' && hasGameOver()) || isClosed(st.view)) return;
    es = new EventSource(streamUrl(id));
    const onEvent = (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (typeof data?.seq !== 'number') return;
      st.events.set(data.seq, data);
      if (['game_over', 'cancelled', 'expired'].includes(data.type)) { es?.close(); es = null; setConn('closed'); }
      scheduleRefresh();
    };
    listenToLog(es, onEvent);
    es.onopen = () => setConn('open');
    es.onerror = () => {
      if (!es) return;
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        es = null;
        setConn('down');
        clearTimeout(reopenTimer);
        reopenTimer = setTimeout(() => { if (alive) { openStream(); scheduleRefresh(); } }, 3000);
      } else {
        setConn('down');
      }
    };
  }

  function hasGameOver() {
    for (const e of st.events.values()) if (e.type === 'game_over') return true;
    return false;
  }

  function setConn(c) {
    if (st.conn === c) return;
    st.conn = c;
    if (c === 'open' && st.view) scheduleRefresh(); // catch up with anything missed while down
    drawConn();
  }

  // ---- new cards -----------------------------------------------------------------------------
  /**
   * The cards drawn since the last step (a survey's, the income) are "fresh" until the next
   * step: when the game's step changes, fresh = the hand minus the hand held at the step
   * before. A card that arrives within a step (a refresh that saw the step before the hand) is
   * fresh too. Kept in sessionStorage, so a reload keeps the marks.
   */
  function markFresh() {
    const v = st.view, hand = st.hand;
    if (!v || !hand || !st.me) return;
    const key = `${v.round}-${v.step}`;
    const ids = hand.hand.map((c) => c.id);
    const s = st.seen;
    if (!s) st.seen = { key, ids, fresh: [] };
    else if (s.key !== key) st.seen = { key, ids, fresh: ids.filter((x) => !s.ids.includes(x)) };
    else {
      const more = ids.filter((x) => !s.ids.includes(x));
      if (more.length) st.seen = { key, ids, fresh: [...s.fresh.filter((x) => ids.includes(x)), ...more] };
    }
    try { sessionStorage.setItem(`city.seen.${id}`, JSON.stringify(st.seen)); } catch { /* private mode: marks last until a reload */ }
  }

  function loadSeen() {
    try { return JSON.parse(sessionStorage.getItem(`city.seen.${id}`) ?? 'null'); } catch { return null; }
  }

  function setSort(by) {
    st.sort = by in HAND_SORTS ? by : 'dealt';
    try { localStorage.setItem(HAND_SORT_KEY, st.sort); } catch { /* kept for this page only */ }
    drawAction();
  }

  /** True when the selection is exactly the order already submitted (nothing would change). */
  function selIsOrder(o) {
    const s = st.sel;
    const same = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
    if (o?.discard) return same(s.discard, o.discard);
    if (o?.build) return s.mode === 'one' && s.b1 === o.build.card && same(s.pay, o.build.pay);
    if (o?.builds) return s.mode === 'two' && s.b1 === o.builds[0].card && s.b2 === o.builds[1].card && same(s.pay, [...o.builds[0].pay, ...o.builds[1].pay]);
    return false;
  }

  // ---- selection ---------------------------------------------------------------------------
  function emptySel() { return { mode: 'one', b1: null, b2: null, pay: [], discard: [] }; }

  function pending() { return st.hand?.pending ?? null; }

  /** Resets the selection when the step changes; starts from a submitted order if any. */
  function syncTurn() {
    const p = pending();
    const key = p ? `${p.round}-${p.step}` : 'none';
    const ids = new Set((st.hand?.hand ?? []).map((c) => c.id));
    const stale = [st.sel.b1, st.sel.b2, ...st.sel.pay, ...st.sel.discard].some((x) => x !== null && !ids.has(x));
    if (key === st.turnKey && !stale) return;
    if (p && key !== st.turnKey && !st.hand.order) {
      const what = `${p.round ? `round ${p.round}, ` : ''}${STEP_NAMES[p.step] ?? p.step}`;
      announce(`Your move: ${what}.`);
      noticePending('The City: your move', `Decide ${what}.`, `city-${id}`);
    }
    st.turnKey = key;
    st.suggested = null;
    st.sel = emptySel();
    st.hint = '';
    st.actionError = '';
    const o = st.hand?.order;
    if (p && o) {
      if (o.discard) st.sel.discard = [...o.discard];
      else if (o.build) Object.assign(st.sel, { b1: o.build.card, pay: [...o.build.pay] });
      else if (o.builds) Object.assign(st.sel, { mode: 'two', b1: o.builds[0].card, b2: o.builds[1].card, pay: [...o.builds[0].pay, ...o.builds[1].pay] });
    }
  }

  const handSlug = (cid) => st.hand?.hand.find((c) => c.id === cid)?.card;
  const buildCost = (cid) => pending()?.options?.builds?.find((b) => b.id === cid)?.cost ?? null;
  const myTableau = () => (st.view?.seats[st.me?.seat]?.tableau ?? []).map((t) => t.card);
  const planner = () => doublePlanner(myTableau());

  function doubleCosts() {
    const s = st.sel;
    const pl = planner();
    const c1 = s.b1 !== null ? pl.firstCost(handSlug(s.b1)) : null;
    const c2 = s.b1 !== null && s.b2 !== null ? pl.secondCost(handSlug(s.b1), handSlug(s.b2)) : null;
    return { c1, c2 };
  }

  /** What clicking hand card `cid` does in the current step. */
  function clickCard(cid) {
    const p = pending();
    if (!p || st.busy) return;
    const s = st.sel;
    st.hint = '';
    st.actionError = '';
    st.refused = '';
    st.suggested = null;
    const hand = st.hand.hand;
    if (p.step !== 'build') {
      const need = p.options.discard;
      if (s.discard.includes(cid)) s.discard = s.discard.filter((x) => x !== cid);
      else {
        s.discard.push(cid);
        if (s.discard.length > need) s.discard.shift();
      }
    } else if (s.mode === 'one') {
      const cost = buildCost(cid);
      if (s.b1 === cid) { s.b1 = null; s.pay = []; } else if (s.b1 === null) {
        if (cost === null) st.hint = whyNot(cid);
        else { s.b1 = cid; s.pay = cheapest(hand, cost, [cid]); }
      } else if (s.pay.includes(cid)) {
        s.pay = s.pay.filter((x) => x !== cid);
      } else {
        const need = buildCost(s.b1) ?? 0;
        if (s.pay.length < need) s.pay.push(cid);
        else if (cost !== null) { s.b1 = cid; s.pay = cheapest(hand, cost, [cid]); } else if (need > 0) { s.pay.shift(); s.pay.push(cid); }
      }
    } else {
      const pl = planner();
      const slug = handSlug(cid);
      if (cid === s.b1) { s.b1 = null; s.b2 = null; s.pay = []; } else if (cid === s.b2) { s.b2 = null; s.pay = []; } else if (s.b1 === null) {
        if (pl.firstCost(slug) === null) st.hint = whyNotDouble(slug, true);
        else s.b1 = cid;
      } else if (s.b2 === null) {
        const c2 = pl.secondCost(handSlug(s.b1), slug);
        if (c2 === null) st.hint = whyNotDouble(slug, false);
        else {
          s.b2 = cid;
          const { c1 } = doubleCosts();
          s.pay = cheapest(hand, c1 + c2, [s.b1, s.b2]);
        }
      } else if (s.pay.includes(cid)) {
        s.pay = s.pay.filter((x) => x !== cid);
      } else {
        const { c1, c2 } = doubleCosts();
        s.pay.push(cid);
        if (s.pay.length > c1 + c2) s.pay.shift();
      }
    }
    drawAction();
  }

  function whyNot(cid) {
    const slug = handSlug(cid);
    const c = card(slug);
    const have = new Map();
    for (const t of myTableau()) have.set(t, (have.get(t) ?? 0) + 1);
    const why = blocked(slug, have);
    if (why) return `${c.name} cannot be built now: ${why === 'not buildable' ? 'it is taken from the pool instead' : why}.`;
    return `${c.name} costs more than the other cards in your hand can pay.`;
  }

  function whyNotDouble(slug, first) {
    const c = card(slug);
    if (c.cost > DOUBLE_MAX_COST) return `${c.name} has a printed cost over ${DOUBLE_MAX_COST}: a double build takes only cheaper cards.`;
    if (first && !planner().gang && !c.construction_gang) return 'Without a Construction Gang in your tableau, the first of two builds must be a Construction Gang.';
    return `${c.name} cannot be built here (${first ? 'first' : 'second'} card).`;
  }

  /**
   * Suggest: asks the expert (a few hints a game; the quick greedy suggestion, pending.suggestion,
   * once they are used up or the server stays busy) and, if the point is still pending when the
   * answer comes, puts it into the selection: the build and its payment, the two builds, or the
   * discards are pre-selected and focus goes to Confirm; a survey or a contractor is pointed at.
   * The player still confirms. Without any suggestion, discards fall back to the cheapest.
   */
  async function suggest() {
    const p = pending();
    if (!p || st.busy) return;
    if (!hints) { applySuggestion(p.suggestion, 'quick'); return; }
    const got = await hints.ask(p);
    if (!alive || !samePoint(p, pending())) return; // the game moved on while the expert thought
    const g = got?.suggestion ?? null;
    if (g && g.round !== undefined && !samePoint({ round: g.round, step: g.step, turn: g.turn ?? p.turn }, p)) return;
    applySuggestion(g, got?.by);
  }

  function applySuggestion(g, by) {
    const p = pending();
    const hand = st.hand.hand;
    const who = by === 'expert' ? 'The expert suggests' : 'Suggested';
    st.hint = '';
    st.actionError = '';
    st.refused = '';
    st.suggested = g ?? {};
    let focus = '#confirm';
    if (p.step !== 'build') {
      st.sel.discard = g?.discard ? [...g.discard] : cheapest(hand, p.options.discard);
    } else if (g?.build) {
      st.sel = { ...emptySel(), b1: g.build.card, pay: [...g.build.pay] };
    } else if (g?.builds?.length === 2) {
      st.sel = { ...emptySel(), mode: 'two', b1: g.builds[0].card, b2: g.builds[1].card, pay: [...g.builds[0].pay, ...g.builds[1].pay] };
    } else if (g?.survey || g?.contractor) {
      st.sel = emptySel();
      const what = g.survey ? 'survey' : 'contractor';
      st.hint = g.survey ? `${who}: survey (draw and keep one card more). Press Survey to do it.`
        : `${who}: take a General Contractor. Press General Contractor to do it.`;
      focus = `#${what}`;
    } else {
      st.hint = 'No suggestion for this step.';
      focus = '#suggest';
    }
    drawAction();
    action.querySelector(`${focus}:not([disabled])`)?.focus();
  }

  function suggestButton() {
    if (hints) return hints.button({ onclick: suggest, disabled: st.busy });
    return h('button', {
      type: 'button', class: 'ghost suggest-btn', id: 'suggest', 'data-focus-key': 'suggest', disabled: st.busy,
      title: 'Pre-select what the quick (greedy) bot would do in your place; you still confirm', onclick: suggest,
    }, 'Suggest');
  }

  // ---- orders ------------------------------------------------------------------------------
  async function send(body) {
    const p = pending();
    if (!p || st.busy) return;
    st.busy = true;
    st.actionError = '';
    drawAction();
    st.refused = '';
    let failed = '';
    try {
      await api.order(id, st.me.token, { round: p.round, step: p.step, ...body });
      announce('Your choice was sent.');
    } catch (e) {
      // Every refusal is shown with the server's sentence, 409 stale_step included: a choice
      // that lost the race with a forced step was not counted, and the player must know.
      failed = e.status === 409 ? `Your choice was not counted. ${e.message}` : e.message;
    }
    st.busy = false;
    st.refused = failed; // not actionError: a new step (this refresh, or one racing it) clears that
    if (failed) announce(failed);
    await refresh();
  }

  function confirm() {
    const p = pending();
    const s = st.sel;
    if (!p) return;
    if (p.step !== 'build') return send({ discard: [...s.discard] });
    if (s.mode === 'one') return send({ build: { card: s.b1, pay: [...s.pay] } });
    const { c1 } = doubleCosts();
    return send({ builds: [{ card: s.b1, pay: s.pay.slice(0, c1) }, { card: s.b2, pay: s.pay.slice(c1) }] });
  }

  /**
   * Force, first click: asks to confirm, remembering the step shown now. The request names
   * that step, so a confirmation that lands after it resolved is refused (409 stale_step) and
   * never forces the next one.
   */
  function askForce() {
    const v = st.view;
    if (!v || st.busy) return;
    st.forceAsk = { round: v.round, step: v.step };
    st.forceError = '';
    drawBar();
    bar.querySelector('#force-yes')?.focus();
  }

  function cancelForce() {
    st.forceAsk = null;
    drawBar();
    bar.querySelector('#force')?.focus();
  }

  async function force() {
    const token = st.host ?? st.me?.token;
    const ask = st.forceAsk;
    if (!token || !ask || st.busy) return;
    st.busy = true;
    st.forceAsk = null;
    st.forceError = '';
    st.forceErrorAt = '';
    drawBar();
    let stale = false;
    try {
      await api.resolve(id, token, ask);
      announce('The step was forced.');
    } catch (e) {
      st.forceError = e.message; // 409 stale_step says the step had moved on: nothing forced
      stale = e.status === 409;
      announce(e.message);
    }
    st.busy = false;
    // A stale Force's error stays through the step the game moved on to, which this page may
    // not have seen yet (a newer refresh may still be on its way): drawBarNow binds it to the
    // first step it sees after the one asked. Any other error binds to the step shown now.
    st.forceErrorFrom = stale ? `${ask.round}-${ask.step}` : '';
    await refresh();
    if (st.forceError && st.view && !stale) st.forceErrorAt = `${st.view.round}-${st.view.step}`; // shown until the next step
  }

  async function join(name) {
    st.joining = true;
    st.joinError = '';
    render();
    try {
      const r = await api.join(id, name);
      store.setSeat(id, r.seat, r.token);
      store.setName(name);
      st.me = { seat: r.seat, token: r.token };
    } catch (e) {
      st.joinError = e.message;
    }
    st.joining = false;
    await refresh();
  }

  async function playAgain(btn) {
    const v = st.view;
    const mine = st.me ? v.seats[st.me.seat]?.name : null;
    const saved = store.settings(id);
    const settings = saved ?? {
      game: v.game ?? 'the_city',
      seats: v.players,
      bots: v.seats.filter((s) => s.bot).map((s) => s.bot),
      kinds: v.seats.map((s) => s.bot ?? 'person'),
      target_vp: v.target_vp,
      turn_seconds: v.turn_seconds,
    };
    settings.name = mine ?? store.name() ?? 'Player';
    if (!settings.name) settings.name = 'Player';
    btn.disabled = true;
    try {
      const nid = await createAndRemember(settings);
      navigate(`#/game/${nid}`);
    } catch (e) {
      st.actionError = e.message;
      btn.disabled = false;
      render();
    }
  }

  function announce(text) { live.textContent = text; }

  // ---- drawing -----------------------------------------------------------------------------
  function render() {
    if (!alive) return;
    keepFocus(root, () => {
      drawBar();
      drawBanner();
      tools.place(banner);
      drawAction();
      drawPlayers();
      drawChart();
      drawLog();
      tools.update();
    });
    const message = st.error || st.notice;
    const showPageError = message && !st.missing && (action.hidden || !st.view) && st.view?.status !== 'finished' && !isClosed(st.view);
    pageError.hidden = !showPageError;
    pageError.textContent = showPageError ? message : '';
    const p = pending();
    document.title = `${p && !st.hand?.order ? '● Your move · ' : ''}${st.view ? `Round ${st.view.round} · ` : ''}The City`;
    sayWhoseTurn();
    fitNames(root);
  }

  /**
   * Says once per step whose decision the game waits for, when it is not this seat's (its own
   * "Your move" is said by syncTurn): a watcher, or a seat with nothing to decide, hears it too.
   */
  function sayWhoseTurn() {
    const v = st.view;
    if (!v || v.status !== 'playing') return;
    const key = `${v.round}-${v.step}`;
    if (key === stepSaid) return;
    stepSaid = key;
    if (pending()) return;
    const waiting = v.seats.filter((x) => x.pending && !x.submitted).map((x) => nameOf(x.seat) ?? `Seat ${x.seat + 1}`);
    const where = v.round ? `Round ${v.round}, ${STEP_NAMES[v.step] ?? v.step}` : 'Setup';
    if (waiting.length) announce(`${where}: waiting for ${joinNames(waiting)}.`);
  }

  function nameOf(seat) {
    const n = st.view?.seats[seat]?.name;
    if (n) return n;
    for (const e of st.events.values()) if (e.type === 'joined' && e.seat === seat) return e.name;
    return null;
  }

  function drawConn() {
    const el = bar.querySelector('#conn');
    if (!el) return;
    const down = st.conn === 'down';
    el.hidden = !down;
    el.className = `conn ${st.conn}`;
    el.textContent = down ? 'Reconnecting…' : '';
  }

  function timerText() {
    const v = st.view;
    if (!v?.deadline || v.status !== 'playing') return null;
    const left = Math.round(v.deadline - Date.now() / 1000);
    if (left <= 0) return 'time is up';
    const m = Math.floor(left / 60), s = left % 60;
    return `${m}:${String(s).padStart(2, '0')} left`;
  }

  function drawBar() {
    const v = st.view;
    const sig = [v && { ...v, seats: v.seats.map((x) => [x.pending, x.submitted]), deadline: v.deadline, last_seq: 0 }, st.missing, !!st.host, timerText() === 'time is up', st.forceAsk, st.forceError, st.busy];
    drawIf(bar, sig, drawBarNow);
  }

  function drawBarNow() {
    const v = st.view;
    if (!v) {
      replace(bar, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('span', { class: 'muted' }, st.missing ? '' : 'Loading the table…'), helpLinks('the_city'));
      return;
    }
    const step = v.status === 'open' ? 'Waiting for players' : isClosed(v) ? (v.status === 'cancelled' ? 'Cancelled' : 'Expired') : v.step === 'over' ? 'Game over'
      : v.round === 0 ? 'Setup: keep 5' : `Round ${v.round} · ${STEP_NAMES[v.step] ?? v.step}`;
    const tt = timerText();
    const waiting = v.seats.filter((x) => x.pending && !x.submitted && x.seat !== st.me?.seat);
    // Force is offered to a seat only where a timer exists and has run out (the server refuses
    // it before), and to the host at any time; either way only after a confirmation.
    const canForce = v.status === 'playing' && v.step !== 'over' && waiting.length > 0 && (st.host || (st.me && tt === 'time is up'));
    const here = `${v.round}-${v.step}`;
    if (st.forceError && !st.forceErrorAt && st.forceErrorFrom && here !== st.forceErrorFrom) st.forceErrorAt = here;
    if (st.forceError && st.forceErrorAt && st.forceErrorAt !== here) st.forceError = '';
    if (st.forceAsk && (st.forceAsk.round !== v.round || st.forceAsk.step !== v.step)) {
      st.forceAsk = null; // the step moved on while the question was open: nothing to force
      st.forceError = 'The step you were about to force has already been resolved; nothing was forced.';
      st.forceErrorAt = here;
    }
    const ask = canForce && st.forceAsk;
    replace(bar,
      h('a', { href: '#/', class: 'back', 'aria-label': 'Back to the lobby' }, '← Lobby'),
      h('div', { class: 'bar-title' }, h('strong', {}, 'The City'), h('span', { class: 'step-pill', id: 'step' }, step)),
      helpLinks('the_city'),
      h('dl', { class: 'stats' },
        stat('Target', `${v.target_vp} VP`),
        stat('Deck', v.deck_count),
        stat('Discards', v.discard_count),
        stat('Contractors', h('span', { title: `${v.contractors_left} General Contractors left in the pool`, class: 'emoji', 'aria-label': String(v.contractors_left) }, v.contractors_left ? '🏗️'.repeat(Math.min(v.contractors_left, 5)) : '0'))),
      tt ? h('span', { class: `timer ${tt === 'time is up' ? 'late' : ''}`, id: 'timer', role: 'timer' }, h('span', { class: 'emoji', 'aria-hidden': 'true' }, '⏱️ '), tt) : null,
      canForce && !ask ? h('button', {
        type: 'button', class: 'ghost small', id: 'force', 'data-focus-key': 'force', onclick: askForce, disabled: st.busy,
        title: 'Resolve the step now: whoever has not chosen gets the default decision',
      }, st.host ? 'Force step' : 'Apply defaults') : null,
      ask ? h('div', { class: 'force-ask', id: 'force-ask', role: 'alertdialog', 'aria-labelledby': 'force-q' },
        h('span', { id: 'force-q' }, `${st.host && tt !== 'time is up' ? (tt ? `${tt}. ` : '') : 'Time is up. '}Resolve ${v.round ? `round ${v.round}, ${STEP_NAMES[v.step] ?? v.step}` : 'the setup keep'} now? ${joinNames(waiting.map((x) => nameOf(x.seat) ?? `Seat ${x.seat + 1}`))} ${waiting.length === 1 ? 'has' : 'have'} not chosen and will get the default (${v.step === 'build' ? 'a survey' : 'discards chosen for them'}).`),
        h('button', { type: 'button', class: 'small danger', id: 'force-yes', 'data-focus-key': 'force-yes', onclick: force, disabled: st.busy }, st.host ? 'Force it' : 'Apply defaults'),
        h('button', { type: 'button', class: 'ghost small', id: 'force-no', 'data-focus-key': 'force-no', onclick: cancelForce }, 'Cancel')) : null,
      st.forceError ? h('p', { class: 'error force-error', role: 'alert', id: 'force-error' }, st.forceError) : null,
      h('span', { id: 'conn', class: 'conn', role: 'status', hidden: true }));
    drawConn();
  }

  function stat(label, value) {
    return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
  }

  function drawBanner() {
    const v = st.view;
    if (st.missing) {
      replace(banner, h('div', { class: 'panel notice' },
        h('h2', {}, 'No such game'), h('p', {}, st.error || 'This game does not exist.'),
        h('a', { href: '#/', class: 'button primary' }, 'Back to the lobby')));
      return;
    }
    if (!v) { replace(banner); drawnSig.delete(banner); return; }
    if (isClosed(v)) {
      if (drawnSig.get(banner) !== v.status) { replace(banner, closedNotice(v)); drawnSig.set(banner, v.status); }
      return;
    }
    if (v.status === 'open') {
      // Re-drawn only when something in it changed, so typing a name is never interrupted.
      const sig = JSON.stringify([v.seats.map((x) => [x.name, x.bot]), st.me?.seat ?? null, st.joinError, st.joining]);
      if (drawnSig.get(banner) !== sig || !banner.firstChild) {
        replace(banner, waitingRoom(v));
        drawnSig.set(banner, sig);
      }
      return;
    }
    if (v.status === 'finished') {
      const sig = JSON.stringify(['end', v.winners, v.seats.map((x) => [x.vp, x.hand_count, x.name]), st.actionError]);
      if (drawnSig.get(banner) !== sig) { replace(banner, endScreen(v)); drawnSig.set(banner, sig); }
      return;
    }
    drawnSig.delete(banner);
    if (!st.me) {
      replace(banner, h('div', { class: 'panel notice slim' },
        h('p', {}, 'You are watching this game: every seat is taken. Hands stay secret; everything else is public.')));
      return;
    }
    replace(banner);
  }

  function waitingRoom(v) {
    const taken = v.seats.filter((s) => s.name).length;
    const parts = [
      h('h2', {}, 'Waiting for players'),
      h('p', {}, `${taken} of ${v.players} seats taken. The game starts as soon as every seat is.`),
      h('ol', { class: 'seat-list waiting' }, v.seats.map((s, i) => h('li', { class: `seat-row ${s.name ? '' : 'free'}` },
        seatDot(i), h('span', {}, s.name ?? 'open seat'),
        s.bot ? h('span', { class: 'tag' }, `${s.bot} bot`) : null,
        st.me?.seat === i ? h('span', { class: 'tag you' }, 'you') : null))),
      shareBox(id),
    ];
    if (!st.me) {
      joinInput ??= h('input', { id: 'join-name', type: 'text', required: true, maxlength: 40, placeholder: 'Your name', value: store.name(), autocomplete: 'nickname' });
      const input = joinInput;
      parts.push(h('form', {
        class: 'join-form', id: 'join-form',
        onsubmit: (e) => {
          e.preventDefault();
          const name = input.value.trim();
          if (!name) { st.joinError = 'Type your name first: it is what the other players see.'; render(); return; }
          join(name);
        },
      },
      h('label', { class: 'field' }, h('span', {}, 'Your name'), input),
      h('button', { type: 'submit', class: 'primary', id: 'join', disabled: st.joining }, 'Join this game')));
      if (st.joinError) parts.push(h('p', { class: 'error', role: 'alert' }, st.joinError));
    } else {
      parts.push(h('p', { class: 'muted' }, 'Send the link to the other players. This page updates by itself.'));
    }
    return h('div', { class: 'panel waiting-room' }, parts);
  }

  function endScreen(v) {
    const winners = v.winners ?? [];
    const names = winners.map((w) => nameOf(w) ?? `Seat ${w + 1}`);
    const top = winners.length ? v.seats[winners[0]].vp : 0;
    const iWon = st.me && winners.includes(st.me.seat);
    const rows = standings(v);
    const place = st.me ? placeLine(rows, st.me.seat) : null;
    const again = h('button', { type: 'button', class: 'primary', id: 'play-again', 'data-focus-key': 'again', onclick: (e) => playAgain(e.currentTarget) }, 'Play again');
    return [h('div', { class: 'panel end-screen', id: 'end-screen', role: 'region', 'aria-labelledby': 'end-title' },
      h('div', { class: 'trophy emoji', 'aria-hidden': 'true' }, '🏆'),
      h('div', { class: 'end-main' }, h('div', { class: 'end-text' },
        h('h2', { id: 'end-title' }, iWon ? (winners.length > 1 ? 'You share the win!' : 'You win!')
          : winners.length > 1 ? `${joinNames(names)} share the win` : `${names[0] ?? 'Nobody'} wins`),
        place ? h('p', { class: 'place', id: 'place' }, `${place}.`) : null,
        h('p', { class: 'lead', id: 'winners' }, `${joinNames(names)} with ${top} VP. The game ended after round ${v.round}: ${(ENDED_BY[v.ended_by] ?? (() => 'it is over'))(v)}.`),
        h('div', { class: 'actions' }, again, h('a', { href: `#/replay/${id}`, class: 'button', id: 'watch-replay' }, 'Watch the replay'),
          copyButton(replayUrl(id), 'Copy link', 'Copy link to the replay'), h('a', { href: '#/', class: 'button' }, 'Lobby')),
        st.actionError ? h('p', { class: 'error', role: 'alert' }, st.actionError) : null),
        h('div', { class: 'end-rank' }, rankingList(rows, (r) => [h('span', { class: 'r-vp' }, `${v.seats[r.seat].vp} VP`), h('span', { class: 'r-hand' }, `${v.seats[r.seat].hand_count} in hand`)],
          { winners, me: st.me?.seat ?? null, nameOf: (s) => nameOf(s) ?? `Seat ${s + 1}` }), tieNote(v)))),
    breakdownBox(id, v, nameOf, st.me?.seat ?? null)];
  }

  /**
   * Runs draw() only when `sig` differs from the last one drawn into `el`: a re-draw replaces
   * buttons, and a click or a Space press that straddles a replacement would be lost.
   */
  function drawIf(el, sig, draw) {
    const text = JSON.stringify(sig);
    if (drawnSig.get(el) === text && el.firstChild) return;
    draw();
    drawnSig.set(el, text);
  }

  function drawAction() {
    const v = st.view;
    const sig = [v?.status, v?.seats.map((x) => [x.pending, x.submitted, x.tableau.length, x.name]), st.hand, st.sel, st.busy, st.hint, st.error, st.actionError, st.refused, st.me?.seat, st.suggested, st.sort, st.seen?.fresh, hints?.sig()];
    drawIf(action, sig, () => keepFocus(action, drawActionNow, action));
  }

  function drawActionNow() {
    const v = st.view;
    const hand = st.hand;
    if (!v || !st.me || !hand || v.status === 'finished' || isClosed(v)) {
      action.hidden = true;
      replace(action);
      return;
    }
    action.hidden = false;
    const p = pending();
    const s = st.sel;
    const head = [];
    const buttons = [];
    let state = 'waiting';
    let cardOpts = () => ({ disabled: true });

    if (v.status === 'open') {
      head.push(h('h2', { id: 'action-title' }, 'Your opening hand'),
        h('p', {}, 'Once the game starts you keep 5 of these 7 cards.'));
    } else if (!p) {
      const waitingFor = v.seats.filter((x) => x.pending && !x.submitted).map((x) => nameOf(x.seat));
      head.push(h('h2', { id: 'action-title' }, 'Your hand'),
        h('p', { class: 'muted' }, waitingFor.length ? `Waiting for ${joinNames(waitingFor)}…` : 'Nothing to decide right now.'));
    } else if (p.step !== 'build') {
      state = p.step;
      const need = p.options.discard;
      const n = hand.hand.length;
      const titles = {
        keep: [`Keep ${n - need} of your ${n} cards`, `Choose ${need} cards to discard, then confirm.`],
        survey: [`Survey: discard ${need} card${need === 1 ? '' : 's'}`, `You drew ${need + 1}. Discard ${need} from your whole hand: you keep one card more than before.`],
        hand_limit: [`Hand limit: discard ${need} card${need === 1 ? '' : 's'}`, `You hold ${n} cards; keep 12.`],
      }[p.step] ?? [`Discard ${need}`, `Choose ${need} cards to discard.`];
      head.push(h('h2', { id: 'action-title' }, titles[0]), h('p', {}, titles[1]));
      head.push(h('p', { class: 'counter', id: 'counter' }, `${s.discard.length} of ${need} chosen`));
      buttons.push(
        h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.discard.length !== need || st.busy, onclick: confirm },
          `Discard ${need} card${need === 1 ? '' : 's'}`),
        suggestButton(),
        s.discard.length ? h('button', { type: 'button', class: 'ghost', id: 'clear', 'data-focus-key': 'clear', onclick: () => { s.discard = []; drawAction(); } }, 'Clear') : null);
      cardOpts = (c) => ({
        state: s.discard.includes(c.id) ? 'discard' : '',
        badge: s.discard.includes(c.id) ? 'Discard' : null,
        label: s.discard.includes(c.id) ? 'Chosen to discard' : 'Press to discard',
      });
    } else {
      state = 'build';
      const o = p.options;
      const round = `Round ${p.round}: build`;
      if (s.mode === 'one') {
        if (s.b1 === null) {
          const any = o.builds.length > 0;
          head.push(h('h2', { id: 'action-title' }, round),
            h('p', {}, any ? 'Pick a highlighted card to build it (its cost after discounts is shown), or choose:' : 'Nothing in your hand can be built this round. Choose:'));
        } else {
          const cost = buildCost(s.b1);
          const name = card(handSlug(s.b1)).name;
          head.push(h('h2', { id: 'action-title' }, `Build ${name}`),
            h('p', {}, cost === 0 ? 'It costs nothing.' : `Pay ${cost} card${cost === 1 ? '' : 's'}: the cards marked “Pay” are the ones least worth keeping. Click a Pay card to keep it, then another card to pay with instead.`),
            cost ? h('p', { class: 'counter', id: 'counter' }, `${s.pay.length} of ${cost} paid`) : null);
          buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.pay.length !== cost || st.busy, onclick: confirm },
            `Build ${name}${cost ? ` · pay ${cost}` : ''}`),
          h('button', { type: 'button', class: 'ghost', id: 'cancel', 'data-focus-key': 'cancel', onclick: () => { st.sel = emptySel(); drawAction(); } }, 'Cancel'));
        }
        cardOpts = (c) => {
          const cost = buildCost(c.id);
          const isB = s.b1 === c.id, isP = s.pay.includes(c.id);
          return {
            cost, state: isB ? 'build' : isP ? 'pay' : '',
            badge: isB ? 'Build' : isP ? 'Pay' : null,
            dim: s.b1 === null && cost === null,
            label: isB ? 'Chosen to build' : isP ? 'Chosen to pay' : s.b1 === null ? (cost === null ? 'Cannot be built now' : `Buildable for ${cost}`) : 'Press to pay with it',
          };
        };
      } else {
        const pl = planner();
        const { c1, c2 } = doubleCosts();
        let sub;
        if (s.b1 === null) sub = 'Pick the first card (printed cost 4 or less).';
        else if (s.b2 === null) sub = `First: ${card(handSlug(s.b1)).name} (${c1}). Pick the second card; the first counts for its discounts.`;
        else sub = `${card(handSlug(s.b1)).name} (${c1}) then ${card(handSlug(s.b2)).name} (${c2}): pay ${c1 + c2}. Click cards to change the payment.`;
        head.push(h('h2', { id: 'action-title' }, 'Construction Gang: build two'), h('p', {}, sub));
        if (s.b2 !== null) head.push(h('p', { class: 'counter', id: 'counter' }, `${s.pay.length} of ${c1 + c2} paid`));
        buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.b2 === null || s.pay.length !== c1 + c2 || st.busy, onclick: confirm }, 'Build both'),
          h('button', { type: 'button', class: 'ghost', id: 'cancel', 'data-focus-key': 'cancel', onclick: () => { st.sel = emptySel(); drawAction(); } }, 'Back to one build'));
        cardOpts = (c) => {
          const slug = c.card;
          let cost = null;
          if (s.b1 === null) cost = pl.firstCost(slug);
          else if (c.id === s.b1) cost = c1;
          else if (s.b2 === null || c.id === s.b2) cost = pl.secondCost(handSlug(s.b1), slug);
          const isB1 = s.b1 === c.id, isB2 = s.b2 === c.id, isP = s.pay.includes(c.id);
          return {
            cost: s.b2 !== null && !isB1 && !isB2 ? null : cost,
            state: isB1 ? 'build' : isB2 ? 'build2' : isP ? 'pay' : '',
            badge: isB1 ? '1st' : isB2 ? '2nd' : isP ? 'Pay' : null,
            dim: s.b2 === null && cost === null && !isB1,
            label: isB1 ? 'First build' : isB2 ? 'Second build' : isP ? 'Chosen to pay' : cost === null ? 'Not eligible' : `Eligible for ${cost}`,
          };
        };
      }
      const quick = [
        h('button', { type: 'button', class: 'quick', id: 'survey', 'data-focus-key': 'survey', disabled: st.busy, onclick: () => send({ survey: true }) },
          h('strong', {}, 'Survey'), h('small', {}, 'draw 5, keep 1 more')),
      ];
      if (o.contractor) {
        quick.push(h('button', { type: 'button', class: 'quick', id: 'contractor', 'data-focus-key': 'contractor', disabled: st.busy, onclick: () => send({ contractor: true }) },
          h('strong', {}, 'General Contractor'), h('small', {}, 'free · income 1 · once')));
      }
      if (o.double && s.mode === 'one') {
        quick.push(h('button', { type: 'button', class: 'quick', id: 'double', 'data-focus-key': 'double', disabled: st.busy, onclick: () => { st.sel = { ...emptySel(), mode: 'two' }; st.hint = ''; drawAction(); } },
          h('strong', {}, 'Build two'), h('small', {}, 'Construction Gang')));
      }
      head.push(h('div', { class: 'quick-row', role: 'group', 'aria-label': 'Other choices' }, quick));
      if (!buttons.length || s.mode === 'two') buttons.push(suggestButton());
      else buttons.splice(1, 0, suggestButton());
      const sug = st.suggested;
      for (const b of quick) b.classList.toggle('suggested', !!st.suggested && !!sug && ((b.id === 'survey' && sug.survey) || (b.id === 'contractor' && sug.contractor)));
    }

    if (hand.defaulted) head.unshift(defaultedNote(hand.defaulted));
    if (p && hand.order) {
      // After a choice is in, the confirm button is an update: it reads "Change my choice" and
      // is live once the selection differs from what was sent.
      const again = buttons.find((b) => b.id === 'confirm');
      if (again) {
        again.textContent = 'Change my choice';
        again.disabled = again.disabled || selIsOrder(hand.order);
      }
      head.push(h('p', { class: 'submitted-note', id: 'submitted' }, `Your choice is in: ${describeOrder(hand.order)}. You can change it until everyone has chosen: pick again, then press ${again ? '“Change my choice”' : 'another choice'}. Waiting for the others…`));
    }

    const fresh = new Set(st.seen?.key === `${v.round}-${v.step}` ? st.seen.fresh : []);
    const cards = sortHand(hand.hand, st.sort).map((c) => {
      const o = cardOpts(c);
      return h('div', { class: 'card-slot' }, cardButton({
        id: c.id, slug: c.card, ...o, fresh: fresh.has(c.id),
        disabled: o.disabled || st.busy && !!p,
        onClick: o.disabled ? null : () => clickCard(c.id),
      }), infoButton(c.card, `info-${c.id}`));
    });
    const sortSelect = h('select', { id: 'hand-sort', 'data-focus-key': 'hand-sort', onchange: (e) => setSort(e.target.value) },
      Object.entries(HAND_SORTS).map(([k, t]) => h('option', { value: k, selected: k === st.sort }, t)));
    replace(action,
      h('div', { class: 'action-head' }, head),
      st.hint ? h('p', { class: 'hint-line', role: 'status' }, st.hint) : null,
      st.actionError || st.refused || st.error ? h('p', { class: 'error', role: 'alert', id: 'action-error' }, st.actionError || st.refused || st.error) : null,
      h('div', { class: 'hand-tools' },
        h('label', { class: 'hand-sort' }, h('span', {}, 'Sort by'), sortSelect),
        fresh.size ? h('span', { class: 'muted', id: 'new-count' }, `${fresh.size} new card${fresh.size === 1 ? '' : 's'} since the last step`) : null),
      h('div', { class: 'hand', id: 'hand', role: 'group', 'aria-label': `Your hand, ${hand.hand.length} cards` }, cards),
      buttons.length ? h('div', { class: 'actions sticky' }, buttons) : null,
      hints?.note(p));
    action.dataset.state = state;
    action.dataset.turn = p ? `${p.round}-${p.step}` : 'none';
    action.dataset.submitted = hand.order ? 'true' : 'false';
    action.dataset.busy = st.busy ? 'true' : 'false';
    action.dataset.need = p && p.step !== 'build' ? String(p.options.discard) : '';
    action.classList.toggle('your-move', !!p && !hand.order);
  }

  /** Tells a defaulted seat what the game chose for it, and why (the hand's `defaulted`). */
  function defaultedNote(d) {
    const where = d.round ? `round ${d.round}, ${STEP_NAMES[d.step] ?? d.step}` : 'the setup keep';
    const why = d.reason === 'forced_by_host' ? `The host forced ${where} before you had chosen`
      : d.reason === 'forced_by_seat' ? `The time for ${where} ran out and ${nameOf(d.by) ?? 'another player'} applied the defaults before you had chosen`
        : `Your time for ${where} ran out`;
    const names = (d.cards ?? []).map((c) => card(c.card)?.name ?? c.card);
    const what = d.chosen?.survey ? 'you surveyed' : names.length ? `you discarded ${joinNames(names)}` : 'you got the default decision';
    return h('p', { class: 'defaulted-note', id: 'defaulted', role: 'status', 'data-reason': d.reason },
      `${why}, so the game chose for you: ${what}.`);
  }

  function describeOrder(o) {
    if (o.survey) return 'survey';
    if (o.contractor) return 'take a General Contractor';
    if (o.build) return `build ${card(handSlug(o.build.card)).name}`;
    if (o.builds) return `build ${o.builds.map((b) => card(handSlug(b.card)).name).join(' and ')}`;
    if (o.discard) return `discard ${o.discard.length}`;
    return 'sent';
  }

  function drawPlayers() {
    const v = st.view;
    players.hidden = !v || v.status === 'open' || isClosed(v); // the waiting room lists the seats
    if (players.hidden) { replace(players); return; }
    const over = v.status === 'finished';
    players.dataset.n = String(v.seats.length);
    // Your own tableau first, then the others in seat order.
    const mine = v.seats.filter((s) => s.seat === st.me?.seat);
    const order = [...mine, ...v.seats.filter((s) => s.seat !== st.me?.seat)];
    replace(players, h('h2', { class: 'offscreen' }, 'Players'), order.map((s) => {
      const i = s.seat;
      const me = st.me?.seat === i;
      const won = over && (v.winners ?? []).includes(i);
      let status = null;
      if (v.status === 'playing' && s.pending) status = s.submitted ? h('span', { class: 'tag ok' }, '✓ chosen') : h('span', { class: 'tag thinking' }, 'choosing…');
      const last = lastAction(s);
      const sumVp = s.tableau.reduce((a, t) => a + t.vp, 0);
      return h('article', { class: `panel player ${me ? 'me' : ''} ${won ? 'won' : ''}`, 'data-seat': i, 'aria-label': `${nameOf(i) ?? 'Seat ' + (i + 1)}: ${s.vp} VP` },
        h('header', { class: 'player-head' },
          seatDot(i),
          h('h3', {}, nameOf(i) ?? 'open seat'),
          me ? h('span', { class: 'tag you' }, 'you') : null,
          botMark(s.bot),
          won ? h('span', { class: 'tag win' }, h('span', { class: 'emoji' }, '🏆'), ' winner') : null,
          status),
        h('div', { class: 'player-stats' },
          h('div', { class: 'big-vp' }, h('span', { class: 'num' }, String(s.vp)), h('span', { class: 'unit' }, 'VP'),
            s.round_vp ? h('span', { class: 'delta', title: 'Points the tableau scores every round' }, `+${s.round_vp} a round`) : null),
          h('dl', { class: 'mini' },
            h('div', {}, h('dt', {}, 'hand'), h('dd', {}, String(s.hand_count))),
            h('div', {}, h('dt', {}, 'income'), h('dd', {}, String(s.income))))),
        last ? h('p', { class: 'last' }, last) : null,
        s.tableau.length
          ? h('ul', { class: 'tableau', 'aria-label': `Tableau, ${s.tableau.length} cards scoring ${sumVp} VP a round` }, s.tableau.map((t) => tableauChip(t, (slug, from) => showCardInfo(slug, from, `In ${nameOf(i) ?? `seat ${i + 1}`}'s tableau: ${t.vp} VP and ${t.income} income a round now.`))))
          : h('p', { class: 'muted empty' }, 'No buildings yet.'),
        s.tableau.length ? h('p', { class: 'breakdown' }, `${s.tableau.length} building${s.tableau.length === 1 ? '' : 's'} · scores ${sumVp} VP and draws ${s.income} card${s.income === 1 ? '' : 's'} a round`) : null);
    }));
  }

  function lastAction(s) {
    const l = s.last;
    if (!l?.action) return null;
    const d = l.default ? ' (default)' : '';
    if (l.action === 'survey') return `Last build step: surveyed${d}.`;
    if (l.action === 'contractor') return 'Last build step: took a General Contractor.';
    const names = l.built.map((b) => card(b).name);
    return `Last build step: built ${joinNames(names)}${l.paid ? `, paid ${l.paid}` : ''}.`;
  }

  function drawChart() {
    const v = st.view;
    if (!v || v.status === 'open' || isClosed(v)) { chartBox.hidden = true; return; }
    chartBox.hidden = false;
    replace(chartBox, h('h2', { id: 'chart-title' }, 'Score by round'),
      scoreChart(v.seats.map((s, i) => ({ ...s, name: nameOf(i) })), v.target_vp));
  }

  function drawLog() {
    if (st.events.size === st.eventsDrawn) return;
    st.eventsDrawn = st.events.size;
    const atBottom = logList.scrollHeight - logList.scrollTop - logList.clientHeight < 40;
    const events = [...st.events.values()].sort((a, b) => a.seq - b.seq);
    replace(logList, renderLog(events, nameOf));
    logNews.update(logList);
    if (atBottom || !logList.dataset.scrolled) { logList.scrollTop = logList.scrollHeight; logList.dataset.scrolled = '1'; }
  }

  // ---- start -------------------------------------------------------------------------------
  const tick = setInterval(() => {
    const el = bar.querySelector('#timer');
    const tt = timerText();
    if (el && tt) el.lastChild.textContent = tt;
    if (tt === 'time is up' && st.me && !bar.querySelector('#force')) drawBar();
  }, 1000);

  render();
  loadCatalog().catch(() => null).then(() => {
    if (!alive) return;
    refresh().then(() => { if (alive && !st.missing) openStream(); });
  });

  return () => {
    alive = false;
    clearInterval(tick);
    clearTimeout(debounce);
    clearTimeout(reopenTimer);
    stopFit();
    es?.close();
    es = null;
    closeCardInfo();
  };
}

