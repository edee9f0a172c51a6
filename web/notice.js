// notice.js: tells a player that a decision is waiting for them while the table's tab is hidden:
// a short tone made with WebAudio (no audio file) and a browser notification (permission is
// asked only when the player turns it on); the tone also while the tab is in view, when asked
// ("your turn"). All are off by default; the table's switches turn them on (the sound switch
// mutes every tone) and this browser's localStorage remembers them.

import { h } from './dom.js';
import { t } from './i18n.js';

const KEYS = { sound: 'city.notice.sound', notify: 'city.notice.notify', open: 'city.notice.open' };

function isOn(which) {
  try { return localStorage.getItem(KEYS[which]) === '1'; } catch { return false; }
}
function setOn(which, on) {
  try { if (on) localStorage.setItem(KEYS[which], '1'); else localStorage.removeItem(KEYS[which]); } catch { /* private mode */ }
}

let audio = null;

/** Makes (or wakes) the AudioContext; browsers allow it to sound only after a user gesture. */
function primeAudio() {
  const Ctx = window.AudioContext ?? window.webkitAudioContext;
  if (!Ctx) return null;
  audio ??= new Ctx();
  if (audio.state === 'suspended') audio.resume().catch(() => null);
  return audio;
}

// With the sound on from an earlier visit, the first key or tap of this one readies the audio.
if (isOn('sound')) {
  const once = () => { primeAudio(); removeEventListener('pointerdown', once, true); removeEventListener('keydown', once, true); };
  addEventListener('pointerdown', once, true);
  addEventListener('keydown', once, true);
}

/** Plays two short soft notes (about a third of a second) when the sound is possible. */
export function chime() {
  const ctx = primeAudio();
  if (!ctx) return;
  const t = ctx.currentTime;
  const gain = ctx.createGain();
  gain.connect(ctx.destination);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.18, t + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.36);
  for (const [freq, at] of [[660, 0], [880, 0.12]]) {
    const osc = ctx.createOscillator();
    osc.type = 'sine';
    osc.frequency.setValueAtTime(freq, t + at);
    osc.connect(gain);
    osc.start(t + at);
    osc.stop(t + at + 0.24);
  }
}

/**
 * Called when a decision becomes pending for this browser's seat: when the tab is hidden,
 * rings (sound switch on) and shows a notification (notify switch on and permission granted)
 * titled `title` with `body`; `tag` makes a newer notice of the same game replace the older.
 * With the tab in view it only rings, when both the sound and the in-view switches are on.
 */
export function noticePending(title, body, tag) {
  if (document.visibilityState !== 'hidden') {
    if (isOn('sound') && isOn('open')) chime();
    return;
  }
  if (isOn('sound')) chime();
  if (isOn('notify') && 'Notification' in window && Notification.permission === 'granted') {
    try {
      const n = new Notification(title, { body, tag, icon: 'favicon.svg' });
      n.onclick = () => { window.focus(); n.close(); };
    } catch { /* some browsers allow notifications only from a service worker */ }
  }
}

/**
 * The table's two switches (sound, notification) in a small panel, with a line saying why a
 * notification cannot be shown when the browser refuses it.
 */
export function noticeSwitches() {
  const why = h('p', { class: 'hint', id: 'notice-why', role: 'status' });
  const sound = h('input', {
    type: 'checkbox', id: 'notice-sound', checked: isOn('sound'),
    onchange: () => {
      setOn('sound', sound.checked);
      open.disabled = !sound.checked;
      if (sound.checked) { primeAudio(); chime(); } // a sample, and the gesture that allows sound
    },
  });
  const open = h('input', {
    type: 'checkbox', id: 'notice-open', checked: isOn('open'), disabled: !isOn('sound'),
    onchange: () => setOn('open', open.checked),
  });
  const notify = h('input', {
    type: 'checkbox', id: 'notice-notify', checked: isOn('notify'),
    onchange: async () => {
      why.textContent = '';
      if (!notify.checked) { setOn('notify', false); return; }
      if (!('Notification' in window)) {
        notify.checked = false;
        why.textContent = t('This browser cannot show notifications.');
        return;
      }
      let p = Notification.permission;
      if (p === 'default') p = await Notification.requestPermission().catch(() => 'denied');
      if (p !== 'granted') {
        notify.checked = false;
        why.textContent = t("Notifications are blocked for this site: allow them in the browser's site settings, then turn this on again.");
        return;
      }
      setOn('notify', true);
    },
  });
  return h('section', { class: 'panel notice-box', id: 'notices', 'aria-labelledby': 'notices-title' },
    h('h2', { id: 'notices-title' }, t('Alerts')),
    h('p', { class: 'hint' }, t('When a decision waits for you and this tab is in the background:')),
    h('label', { class: 'check' }, sound, h('span', {}, t('Play a sound'))),
    h('label', { class: 'check' }, open, h('span', {}, t('Play it also while this tab is open'))),
    h('label', { class: 'check' }, notify, h('span', {}, t('Show a notification'))),
    why);
}
