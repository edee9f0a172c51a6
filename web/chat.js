// chat.js: table talk at a game's table (issue 27): the players' channel, which everyone at the
// table and every watcher reads, and the watchers' channel, which signed-in watchers (an account
// with no seat here) read and write and the seats read only once the game has ended. Messages
// come live as `chat` events of the game's stream (live.js passes them on) and are read after a
// cursor on opening, after a cut, and every few seconds where the stream cannot bring them (a
// signed-in watcher's page streams as an anonymous watcher). Text is always shown as typed
// (dom.js sets text, never markup). Muting a person is this browser's business: the muted names
// are kept in localStorage and their messages hidden; a report goes to the server's operator.

import { api, store } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { t } from './i18n.js';

/** How often the chat is read again where the stream does not bring it (ms). */
const POLL_MS = 5000;
/** The longest message the server takes (characters). */
const MAX_CHARS = 500;
const MUTED = 'city.chatMuted';

/** The muted people of this browser: a Set of keys from authorKey(). */
function readMuted() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTED) ?? '[]')); } catch { return new Set(); }
}

function writeMuted(set) {
  try { localStorage.setItem(MUTED, JSON.stringify([...set])); } catch { /* private mode: this page only */ }
}

/** Who wrote message m, as muting remembers it: the channel's kind and the name as shown. */
export function authorKey(m) {
  return `${m.channel === 'watchers' ? 'w' : 'p'}:${m.name}`;
}

/**
 * The table talk of a finished game as a list (the replay viewer's): every message of both
 * channels, oldest first, text as typed, the people this browser muted left out.
 */
export function chatTranscript(messages) {
  const muted = readMuted();
  const shown = messages.filter((m) => !muted.has(authorKey(m)));
  return h('ol', { class: 'chat-list', id: 'replay-chat', 'aria-label': t('Table talk') },
    shown.length ? shown.map((m) => h('li', { class: 'chat-msg' },
      h('span', { class: 'chat-name' }, m.name), ' ',
      m.channel === 'watchers' ? h('span', { class: 'tag' }, 'watcher') : null, ' ',
      h('span', { class: 'chat-text' }, m.text)))
      : h('li', { class: 'chat-empty muted' }, t('Every message here is from someone you muted.')));
}

/**
 * The chat panel of game `id`. `read()` returns {me (this browser's seat {seat, token} or
 * null), conn (the stream's state), status (the game's)}. Returns {el, add(message) (a `chat`
 * event of the stream), sync() (after every change of the table), close()}.
 */
export function chatPanel(id, read) {
  const msgs = new Map(); // id -> message
  let last = 0;
  let seesWatchers = false;
  let loading = null;
  let muted = readMuted();
  const reported = new Set();
  const ui = { error: '', sending: false, draft: '', status: '' };
  let timer = null;
  let alive = true;

  const players = h('ol', { class: 'chat-list', id: 'chat-players', 'aria-label': t("Players' messages") });
  const watchers = h('ol', { class: 'chat-list', id: 'chat-watchers', 'aria-label': t("Watchers' messages") });
  const watchersBox = h('div', { class: 'chat-watchers', hidden: true },
    h('h3', { id: 'chat-watchers-title' }, t('Watchers')), watchers);
  const form = h('div', { class: 'chat-form' });
  const mutedBox = h('div', { class: 'chat-muted' });
  const said = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'chat-news' });
  const scroll = h('div', { class: 'chat-scroll', tabindex: 0, role: 'region', 'aria-label': t('Chat messages') },
    players, watchersBox);
  const el = h('section', { class: 'panel chat-box', id: 'chat', 'aria-labelledby': 'chat-title' },
    h('h2', { id: 'chat-title' }, t('Table talk')), scroll, mutedBox, form, said);

  /** The token that reads the most this browser may: a signed-in watcher's session, else none. */
  function readToken() {
    const { me } = read();
    if (me) return me.token;
    return store.session()?.token ?? null;
  }

  /** Who may write here: {token, channel} or null (an anonymous watcher reads only). */
  function writer() {
    const { me } = read();
    if (me) return { token: me.token, channel: 'players' };
    const s = store.session();
    return s ? { token: s.token, channel: 'watchers' } : null;
  }

  function add(m) {
    if (!m || typeof m.id !== 'number' || msgs.has(m.id)) return false;
    if (m.channel === 'watchers') seesWatchers = true;
    msgs.set(m.id, m);
    last = Math.max(last, m.id);
    return true;
  }

  /** Reads every message after the last one known, page by page. */
  function catchUp() {
    loading ??= (async () => {
      try {
        for (let i = 0; i < 20; i++) {
          const page = await api.chat(id, last, readToken());
          seesWatchers = seesWatchers || page.watchers;
          let fresh = 0;
          for (const m of page.messages) if (add(m)) fresh++;
          if (fresh) news(page.messages.at(-1));
          if (!page.more) break;
        }
        ui.error = '';
      } catch (e) {
        if (e.status !== 401) ui.error = e.message; // a session that ended reads as a watcher
      } finally {
        loading = null;
      }
      if (alive) draw();
    })();
    return loading;
  }

  /** Tells screen readers of the newest message (unless its author is muted). */
  function news(m) {
    if (m && !muted.has(authorKey(m))) said.textContent = `${m.name} says: ${m.text}`;
  }

  // A message's key (the server stores a message sent again with its key once): kept with its
  // text until it is stored, so Send pressed again after an answer that never came, or the
  // resend after a 503 below, cannot post it twice.
  let keyed = { text: null, key: null };
  function keyFor(text) {
    if (keyed.text !== text) {
      const b = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs a secure context
      keyed = { text, key: Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('') };
    }
    return keyed.key;
  }

  async function send() {
    const w = writer();
    const text = ui.draft;
    if (!w || ui.sending || !text.trim()) return;
    ui.sending = true;
    ui.error = '';
    draw();
    try {
      const key = keyFor(text);
      let m;
      for (let tries = 1; ; tries++) {
        try {
          m = await api.say(id, w.token, text, key);
          break;
        } catch (e) { // the database was away or failed over: the same key again, at most twice
          if (e.status !== 503 || tries > 2 || !alive) throw e;
          await new Promise((ok) => setTimeout(ok, 1000 * Math.min(e.retryAfter ?? 1, 5)));
        }
      }
      add(m);
      keyed = { text: null, key: null };
      ui.draft = '';
      ui.status = t('Sent.');
    } catch (e) {
      ui.error = e.code === 'rate_limited' ? (e.retryAfter ? t('You are talking fast: wait {n} seconds.', { n: e.retryAfter }) : t('You are talking fast: wait a few seconds.')) : e.message;
    } finally {
      ui.sending = false;
    }
    if (alive) draw();
  }

  async function report(m) {
    try {
      await api.reportChat(id, m.id, readToken(), 'reported from the table page');
      reported.add(m.id);
      ui.status = t("Reported {name}'s message to the server's operator.", { name: m.name });
    } catch (e) {
      ui.error = e.message;
    }
    if (alive) draw();
  }

  function toggleMute(key, name) {
    if (muted.has(key)) muted.delete(key);
    else muted.add(key);
    writeMuted(muted);
    ui.status = muted.has(key) ? t('{name} is muted on this browser.', { name }) : t('{name} is no longer muted.', { name });
    draw();
  }

  /** Whether message m is this browser's own (no mute or report for those). */
  function mine(m) {
    const { me } = read();
    if (m.channel === 'players') return me !== null && me !== undefined && m.seat === me.seat;
    return m.name === store.session()?.name;
  }

  function item(m) {
    const key = authorKey(m);
    const own = mine(m);
    return h('li', { class: `chat-msg${own ? ' own' : ''}`, 'data-id': m.id },
      h('span', { class: 'chat-name' }, m.name), ' ',
      h('span', { class: 'chat-text' }, m.text),
      own ? null : h('span', { class: 'chat-tools' },
        h('button', {
          type: 'button', class: 'ghost small chat-mute', 'data-focus-key': `mute-${m.id}`,
          'aria-label': t('Mute {name}', { name: m.name }), onclick: () => toggleMute(key, m.name),
        }, t('Mute')),
        h('button', {
          type: 'button', class: 'ghost small chat-report', 'data-focus-key': `report-${m.id}`,
          'aria-label': reported.has(m.id) ? t("Reported {name}'s message", { name: m.name }) : t("Report {name}'s message", { name: m.name }),
          disabled: reported.has(m.id), onclick: () => report(m),
        }, reported.has(m.id) ? t('Reported') : t('Report'))));
  }

  // A button that goes with its message (a mute) leaves the focus on the messages' box.
  function draw() {
    keepFocus(el, drawNow, scroll);
  }

  function drawNow() {
    const all = [...msgs.values()].sort((a, b) => a.id - b.id);
    const shown = (channel) => all.filter((m) => m.channel === channel && !muted.has(authorKey(m)));
    const p = shown('players');
    replace(players, p.length ? p.map(item) : h('li', { class: 'chat-empty muted' }, t('No messages yet.')));
    watchersBox.hidden = !seesWatchers;
    const w = shown('watchers');
    replace(watchers, w.length ? w.map(item) : h('li', { class: 'chat-empty muted' }, t("No watchers' messages.")));
    const names = [...muted].map((k) => [k, k.slice(2)]);
    replace(mutedBox, names.length ? h('p', { class: 'hint' }, t('Muted here: '),
      names.map(([k, name]) => h('button', {
        type: 'button', class: 'ghost small', 'data-focus-key': `unmute-${k}`,
        'aria-label': t('Unmute {name}', { name }), onclick: () => toggleMute(k, name),
      }, `${name} ×`))) : null);
    drawForm();
  }

  // The form is made again only when who may write changes (a seat taken, a sign-in): a message
  // that arrives while one types must not replace the text box under the caret.
  const input = h('textarea', {
    id: 'chat-input', rows: 2, maxlength: MAX_CHARS,
    oninput: (e) => { ui.draft = e.target.value; ui.status = ''; statusEl.textContent = ''; },
    onkeydown: (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); } },
  });
  const label = h('label', { class: 'field', for: 'chat-input' });
  const sendBtn = h('button', { type: 'button', class: 'primary', id: 'chat-send', onclick: () => send() }, t('Send'));
  const errEl = h('p', { class: 'error', role: 'alert', id: 'chat-error', hidden: true });
  const statusEl = h('p', { class: 'hint', id: 'chat-status', 'aria-live': 'polite' });
  let formFor = undefined; // the channel the form was made for (null: none may be written)

  function drawForm() {
    const channel = writer()?.channel ?? null;
    if (channel !== formFor) {
      formFor = channel;
      if (!channel) {
        replace(form, h('p', { class: 'hint' }, t("Watchers sign in to talk (with the other watchers); you can read the players' talk.")));
      } else {
        label.textContent = channel === 'players' ? t('Message to the table')
          : t('Message to the watchers (hidden from the players until the end)');
        input.placeholder = channel === 'players' ? t('Say something to the table') : t('Say something to the other watchers');
        replace(form, label, h('div', { class: 'chat-send' }, input, sendBtn), errEl, statusEl);
      }
    }
    if (input.value !== ui.draft) input.value = ui.draft;
    sendBtn.disabled = ui.sending;
    sendBtn.textContent = ui.sending ? t('Sending…') : t('Send');
    errEl.hidden = !ui.error;
    errEl.textContent = ui.error;
    statusEl.textContent = ui.status;
  }

  // Where the stream brings no chat (down, or a signed-in watcher's page), read it every few
  // seconds; an ended game's stream has closed, so its talk is read the same way.
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!alive) return;
      const { me, conn } = read();
      if (conn !== 'open' || (!me && store.session())) catchUp();
      schedule();
    }, POLL_MS);
  }

  let seenConn = null;
  let seenMe = null;
  function sync() {
    const { conn, me } = read();
    // A stream (re)opened, or this browser took a seat or signed in: read what was missed.
    if ((conn === 'open' && seenConn !== 'open') || (me?.seat ?? null) !== seenMe) catchUp();
    seenConn = conn;
    seenMe = me?.seat ?? null;
    if ((writer()?.channel ?? null) !== formFor) draw();
  }

  const onSession = () => { if (alive) { seesWatchers = false; msgs.clear(); last = 0; catchUp(); draw(); } };
  const onStorage = (e) => { if (e.key === MUTED) { muted = readMuted(); draw(); } };
  window.addEventListener('city-session', onSession);
  window.addEventListener('storage', onStorage);
  draw();
  catchUp();
  schedule();

  return {
    el,
    add: (m) => { if (add(m)) { news(m); draw(); } },
    sync,
    close: () => {
      alive = false;
      clearTimeout(timer);
      window.removeEventListener('city-session', onSession);
      window.removeEventListener('storage', onStorage);
    },
  };
}
