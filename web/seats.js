// seats.js: seats that change hands, for every table (the shell, table.js): the
// "Table" panel with Leave game (a bot takes a running game's seat; an open game's seat is free
// again) and, apart under "Host tools", the host's Cancel game (an open game; styled as the
// danger it is) and Hand to a bot (only for another person's seat of a running game once it has
// missed a turn or is away, named as players see it), each asking first, their refusals said in
// players' words; the notice a cancelled or expired game shows instead
// of its table; the bot mark next to a seat's kept name; the log's lines for these events; and a
// one-shot notice the lobby shows after a player left an open game.

import { api, store } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { inPlayersWords } from './ui.js';
import { t, tn, N_ } from './i18n.js';

/** True when game view `v` ended before it started (cancelled by its host, or expired). */
export function isClosed(v) { return v?.status === 'cancelled' || v?.status === 'expired'; }

/** The panel that replaces a cancelled or expired game's table: what happened, and the lobby. */
export function closedNotice(v) {
  const cancelled = v.status === 'cancelled';
  return h('div', { class: 'panel notice closed-notice', id: 'closed-notice', 'data-status': v.status },
    h('h2', {}, cancelled ? t('Game cancelled') : t('Game expired')),
    h('p', {}, cancelled ? t('The host cancelled this game before it started. Nobody can join it any more.')
      : t('The seats of this game did not fill in time, so it expired before it started. Nobody can join it any more.')),
    h('a', { href: '#/', class: 'button primary', id: 'to-lobby' }, t('Back to the lobby')));
}

/** A bot's kind in words ("greedy", "expert"). */
const BOT_KINDS = { greedy: N_('greedy'), random: N_('random'), expert: N_('expert') };
const botKind = (bot) => (BOT_KINDS[bot] ? t(BOT_KINDS[bot]) : bot);

/** A bot mark for a seat a bot plays (`bot` is the bot's kind, e.g. "greedy"); null for a person. */
export function botMark(bot) {
  if (!bot) return null;
  return h('span', { class: 'tag bot-mark', title: t('A {kind} bot plays this seat', { kind: botKind(bot) }) },
    t('{kind} bot', { kind: botKind(bot) }));
}

/**
 * Whether another person is at the table, from seat `seat` of the public view (its `presence`):
 * a tag that says "online" or "away" in words (the colour only repeats it); null for a bot's
 * seat, a free seat, this browser's own seat (`mine`) and a game not being played (`status`).
 */
export function presenceMark(seat, { status, mine }) {
  if (!seat?.name || seat.bot || mine || status !== 'playing' || !seat.presence) return null;
  const away = seat.presence === 'away';
  return h('span', {
    class: `tag presence ${away ? 'away' : 'online'}`, 'data-presence': seat.presence,
    title: away ? t('Not at the table: no page or app of theirs seen lately') : t('At the table now'),
  }, away ? 'away' : 'online');
}

/** Seconds as m:ss. */
const mmss = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** A bank tag's words: what is left, counting down once the seat draws on it (from `ends - bank`). */
function bankText(bank, ends, now = Date.now() / 1000) {
  if (!ends || now < ends - bank) return t('bank {time}', { time: mmss(bank) });
  return t('using bank {time}', { time: mmss(Math.max(0, Math.round(ends - now))) });
}

/**
 * A person's time bank (docs/rules.md "Timers and defaults"), from seat `seat` (number `i`) of
 * public view `v`: "bank 4:30", or, while the seat must decide and the step's own time is over,
 * "using bank 1:12" counting down (tickBanks() updates it every second); null in a game without
 * a bank, for a bot's or a free seat, and in a game not being played.
 */
export function bankMark(seat, v, i = seat?.seat) {
  if (seat?.bank_seconds == null || !seat.name || seat.bot || v?.status !== 'playing') return null;
  const deciding = (Array.isArray(v.pending) ? v.pending.includes(i) : !!seat.pending) && !seat.submitted;
  const ends = deciding && v.step_deadline ? v.step_deadline + seat.bank_seconds : 0;
  return h('span', {
    class: 'tag bank', 'data-bank': seat.bank_seconds, 'data-bank-ends': ends || '',
    title: t('Time bank: extra time this player may take, for the whole game, once a step\'s own time is up'),
  }, bankText(seat.bank_seconds, ends));
}

/** Updates the words of every bank tag under `root` that counts down (called every second). */
export function tickBanks(root) {
  for (const el of root.querySelectorAll('.tag.bank[data-bank-ends]')) {
    if (el.dataset.bankEnds) el.textContent = bankText(Number(el.dataset.bank), Number(el.dataset.bankEnds));
  }
}

/**
 * The log line of a seat event (`left`, `taken_over`, `cancelled`, `expired`, `abandoned`) as
 * {kind, seq, text}, or null for any other event. who(seat) gives a seat's name.
 */
export function seatLogLine(e, who) {
  const name = e.name || who(e.seat);
  let text;
  switch (e.type) {
    case 'left': text = e.bot ? t('{name} left; a bot plays the seat from now on.', { name }) : t('{name} left the table.', { name }); break;
    case 'taken_over': text = tn(e.missed, "The host handed {name}'s seat to a bot after {count} missed turn.", "The host handed {name}'s seat to a bot after {count} missed turns.", { name }); break;
    case 'cancelled': text = t('The host cancelled the game.'); break;
    case 'expired': text = t('The seats did not fill in time: the game expired.'); break;
    case 'abandoned': text = t('Nobody played for a long time: the game ended unfinished (abandoned).'); break;
    default: return null;
  }
  return { kind: e.type === 'left' && !e.bot ? 'minor' : 'warn', seq: e.seq, text };
}

const FLASH = 'city.flash';

/** Keeps `text` for the next page the lobby draws (once). */
export function setFlash(text) {
  try { sessionStorage.setItem(FLASH, text); } catch { /* private mode: no notice */ }
}

/** The notice kept by setFlash(), removed as it is read; '' when there is none. */
export function takeFlash() {
  try {
    const t = sessionStorage.getItem(FLASH) ?? '';
    sessionStorage.removeItem(FLASH);
    return t;
  } catch { return ''; }
}

/**
 * The "Table" panel of game `id`. read() gives {view, me, host, events, nameOf} as the table
 * knows them now (events: an iterable of the log's events); dropSeat() makes the table forget
 * this browser's seat and refresh; refresh() refreshes it; navigate(hash) changes the route.
 * reclaim() takes back this browser's seat that a bot took over (read()'s `reclaim`).
 * Returns {el, update(), place(banner)}: the table places `el` once, calls update() after every
 * change, and place(banner) after drawing its banner (the panel joins the waiting room there).
 */
export function seatTools({ id, read, dropSeat, refresh, navigate, reclaim = null }) {
  const el = h('section', { class: 'panel seat-tools', id: 'seat-tools', 'aria-labelledby': 'seat-tools-title', tabindex: -1, hidden: true });
  const ui = { ask: null, askedIn: '', busy: false, error: '', notice: '', handError: null, handing: null };
  let drawn = '';

  function update() {
    const s = read();
    const v = s.view;
    const running = v?.status === 'playing';
    const open = v?.status === 'open';
    const canLeave = !!s.me && (running || open);
    const canCancel = !!s.host && open;
    const handable = running && (s.host || s.me) ? handableSeats(s) : [];
    const canReclaim = running && !!s.reclaim && !!reclaim;
    // A question asked of an open game is void once it started: leaving means another thing then.
    if (ui.ask && !ui.busy && (ui.askedIn !== v?.status || (ui.ask === 'leave' && !canLeave) || (ui.ask === 'cancel' && !canCancel))) ui.ask = null;
    const sig = JSON.stringify([v?.status, canLeave, canCancel, handable, canReclaim, !!s.host, ui]);
    if (sig === drawn) return;
    drawn = sig;
    el.hidden = !canLeave && !canCancel && !handable.length && !canReclaim && !ui.notice && !ui.error;
    keepFocus(el, () => draw({ running, canLeave, canCancel, handable, canReclaim, isHost: !!s.host }), el);
  }

  /**
   * The running game's people other than this browser's own seat who may need a bot: for the
   * host those who missed a turn (a default decision: a timer ran out, or the host forced the
   * step), away or not; for another player those away who missed a turn (the server's rule for
   * them); a person away who has missed nothing is only waited for. Each with their name as
   * players see it, their missed turns and their presence.
   */
  function handableSeats(s) {
    const missed = new Map();
    for (const e of s.events) if (e.type === 'default' && typeof e.seat === 'number') missed.set(e.seat, (missed.get(e.seat) ?? 0) + 1);
    return (s.view.seats ?? []).map((x, i) => ({ seat: x.seat ?? i, name: s.nameOf(x.seat ?? i) ?? `Seat ${i + 1}`, bot: x.bot, person: !!x.name, away: x.presence === 'away' }))
      .filter((x) => x.person && !x.bot && x.seat !== s.me?.seat && missed.get(x.seat) > 0 && (s.host || x.away))
      .map((x) => ({ seat: x.seat, name: x.name, missed: missed.get(x.seat) ?? 0, away: x.away }));
  }

  function draw({ running, canLeave, canCancel, handable, canReclaim, isHost }) {
    const parts = [h('h2', { id: 'seat-tools-title', class: el.classList.contains('in-room') ? 'offscreen' : null }, t('Table'))];
    if (ui.notice) parts.push(h('p', { class: 'seat-notice', id: 'seat-notice', role: 'status' }, ui.notice));
    if (canReclaim) {
      parts.push(h('p', { class: 'reclaim-note', id: 'reclaim-note' }, t('A bot has played your seat since you were away.')),
        h('button', { type: 'button', class: 'primary', id: 'reclaim', disabled: ui.busy, onclick: takeBack }, ui.busy ? t('Taking it back…') : t('Take my seat back')));
    }
    if (canLeave) {
      parts.push(ui.ask === 'leave'
        ? question('leave', running ? t('A bot will play your seat for the rest of the game. Leave?')
          : t('Your seat will be free again for someone else. Leave?'), t('Leave the game'), t('Stay'), leave)
        : h('button', { type: 'button', class: 'ghost', id: 'leave', onclick: () => ask('leave') }, t('Leave game')));
    }
    // The host's tools, apart from Leave: only where they apply, the dangerous one marked so.
    const host = [];
    if (canCancel) {
      host.push(ui.ask === 'cancel'
        ? question('cancel-game', t('Cancel this game for everyone? Nobody will be able to join or play it, and it cannot be undone.'),
          t('Yes, cancel the game'), t('Keep the game'), cancelGame)
        : h('button', { type: 'button', class: 'danger-outline', id: 'cancel-game', onclick: () => ask('cancel') }, t('Cancel this game')));
    }
    if (handable.length) {
      const to = isHost ? host : parts; // another player's tool stands apart from the host's
      to.push(h('p', { class: 'handover-title', id: 'handover-title' }, t('Players who miss their turns')),
        h('p', { class: 'muted small-print' }, isHost ? t('A bot can play for a player who keeps missing turns (timers that ran out, or steps you forced); the player keeps their name and the game goes on.')
          : t('A player away whose time ran out can be replaced by a bot so the game goes on; they can take their seat back when they return.')),
        h('ul', { class: 'handover-list', 'aria-labelledby': 'handover-title' }, handable.map((x) => h('li', { class: 'handover-row', 'data-seat': x.seat },
          h('span', { class: 'ho-name' }, x.name),
          h('span', { class: 'muted ho-missed' }, [x.away ? 'away' : null, `missed ${x.missed} turn${x.missed === 1 ? '' : 's'}`].filter(Boolean).join(' · ')),
          h('button', {
            type: 'button', class: 'small', id: `handover-${x.seat}`, 'data-focus-key': `handover-${x.seat}`,
            'aria-label': t("Hand to a bot: {name}'s seat", { name: x.name }), disabled: ui.busy, onclick: () => handOver(x),
          }, ui.handing === x.seat ? t('Handing…') : t('Hand to a bot'))))));
      if (ui.handError) to.push(h('p', { class: 'error', role: 'alert', id: 'handover-error' }, ui.handError));
    }
    if (host.length) {
      parts.push(h('div', { class: 'host-tools', id: 'host-tools', role: 'group', 'aria-labelledby': 'host-tools-title' },
        h('h3', { id: 'host-tools-title' }, t('Host tools')),
        h('p', { class: 'hint host-hint' }, t('Only you see these: you created this game.')),
        host));
    }
    if (ui.error) parts.push(h('p', { class: 'error', role: 'alert', id: 'seat-error' }, ui.error));
    replace(el, parts);
  }

  /** An inline confirmation: the question, a yes button that runs `yes`, and a no button. */
  function question(key, text, yesLabel, noLabel, yes) {
    return h('div', {
      class: 'seat-ask', id: `${key}-ask`, role: 'alertdialog', 'aria-labelledby': `${key}-q`,
      onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); unask(key); } },
    },
    h('p', { id: `${key}-q` }, text),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'danger', id: `${key}-yes`, disabled: ui.busy, onclick: yes }, yesLabel),
      h('button', { type: 'button', class: 'ghost', id: `${key}-no`, disabled: ui.busy, onclick: () => unask(key) }, noLabel)));
  }

  function ask(what) {
    ui.ask = what;
    ui.askedIn = read().view?.status ?? '';
    ui.error = '';
    update();
    el.querySelector(`#${what === 'leave' ? 'leave' : 'cancel-game'}-yes`)?.focus();
  }

  function unask(key) {
    ui.ask = null;
    update();
    el.querySelector(`#${key}`)?.focus();
  }

  async function leave() {
    const s = read();
    if (!s.me || ui.busy) return;
    const open = s.view?.status === 'open';
    ui.busy = true;
    update();
    let ok = true;
    try {
      await api.leave(id, s.me.token);
    } catch (e) {
      // A token that no longer works has lost its seat already: the page forgets it all the same.
      ok = e.status === 401;
      if (!ok) ui.error = inPlayersWords(e);
    }
    ui.busy = false;
    ui.ask = null;
    if (ok) {
      store.forgetSeat(id);
      if (open) {
        setFlash(t('You left the game; your seat is free again for someone else.'));
        navigate('#/');
        return;
      }
      ui.notice = t('You left the game: a bot plays your seat from now on. You are watching.');
      dropSeat();
    }
    update();
  }

  async function cancelGame() {
    const s = read();
    if (!s.host || ui.busy) return;
    ui.busy = true;
    update();
    try {
      await api.cancel(id, s.host);
    } catch (e) {
      ui.error = inPlayersWords(e);
    }
    ui.busy = false;
    ui.ask = null;
    update();
    refresh();
  }

  async function takeBack() {
    if (ui.busy) return;
    ui.busy = true;
    ui.error = '';
    update();
    try {
      await reclaim();
      ui.notice = t('Your seat is yours again: play on.');
    } catch (e) {
      ui.error = inPlayersWords(e);
    }
    ui.busy = false;
    update();
  }

  async function handOver(x) {
    const s = read();
    if ((!s.host && !s.me) || ui.busy) return;
    ui.busy = true;
    ui.handing = x.seat;
    ui.handError = null;
    update();
    try {
      // A player's own key for a seat away past its time (their rule); else the host's.
      await api.takeover(id, x.away && s.me ? s.me.token : s.host, x.seat);
      ui.notice = t("{name}'s seat is played by a bot from now on.", { name: x.name });
    } catch (e) {
      ui.handError = inPlayersWords(e, { name: x.name });
    }
    ui.busy = false;
    ui.handing = null;
    update();
    refresh();
  }

  let home = null; // where the table placed the panel: [parent, the sibling after it]

  /** Moves the panel into `banner`'s waiting room while there is one, else back home. */
  function place(banner) {
    home ??= [el.parentNode, el.nextSibling];
    const room = banner.querySelector('.waiting-room');
    if (room) { if (el.parentNode !== room) room.append(el); } else if (home[0] && el.parentNode !== home[0]) home[0].insertBefore(el, home[1]);
    el.classList.toggle('in-room', !!room);
  }

  return { el, update, place };
}
