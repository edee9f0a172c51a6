// account.js: the optional account, never in the way of playing: the header's "Sign in" (or the
// account's name once signed in) and its link to the leaderboards; the sign-in and sign-up page
// (#/signin, #/signup), which goes back to where the player was; and the account page
// (#/account): sign out, sign out everywhere, change the password, delete the account (asked
// first, in players' words). The session token is kept by api.js (store.session()); a refusal is
// said in players' words (ui.js), a 429 with its wait.

import { api, store } from './api.js';
import { h, replace } from './dom.js';
import { inPlayersWords, showError, clearError } from './ui.js';
import { setFlash } from './seats.js';
import { t, tn } from './i18n.js';

/** The routes of this file: after them, the player goes back to the last other place. */
const OWN = /^#\/(signin|signup|account)\/?$/;
let back = '#/';

/** Keeps `hash` as the place to go back to after signing in (the router calls it on every route). */
export function rememberPlace(hash) {
  if (!OWN.test(hash)) back = hash || '#/';
}

/**
 * Draws the header's account links in `nav` and keeps them up to date (a sign-in or sign-out
 * here or in another tab): the leaderboards, and "Sign in" or the account's name.
 */
export function mountAccountNav(nav) {
  const draw = () => {
    const s = store.session();
    replace(nav,
      h('a', { href: '#/leaderboard', id: 'leaderboard-link' }, t('Leaderboards')),
      s ? h('a', { href: '#/account', id: 'account-link', class: 'account-name', 'aria-label': t('Your account: {name}', { name: s.name }) }, s.name)
        : h('a', { href: '#/signin', id: 'signin-link' }, t('Sign in')));
  };
  window.addEventListener('city-session', draw);
  window.addEventListener('storage', (e) => { if (e.key === null || e.key === 'city.session') draw(); });
  draw();
}

/** A labelled field: the label's text and its input. */
function field(label, input, hint = null) {
  return [h('label', { class: 'field' }, h('span', {}, label), input),
    hint ? h('p', { class: 'hint', id: input.getAttribute('aria-describedby') }, hint) : null];
}

/**
 * Mounts the sign-in page (`mode` 'signin') or the sign-up page ('signup') in `root`: a name
 * and a password; signing up signs in too. Once signed in, goes back to where the player was.
 * Returns a teardown function.
 */
export function mountSignIn(root, navigate, mode) {
  let alive = true;
  const up = mode === 'signup';
  document.title = up ? t('Create an account · City card games') : t('Sign in · City card games');
  const now = store.session();
  if (now) {
    replace(root, h('section', { class: 'panel account-page', 'aria-labelledby': 'account-title' },
      h('h1', { id: 'account-title' }, t('You are signed in')),
      h('p', {}, t('You are signed in as {name}.', { name: now.name })),
      h('div', { class: 'actions' }, h('a', { class: 'button primary', href: '#/' }, t('Play')), h('a', { class: 'button', href: '#/account' }, t('Your account')))));
    return () => { alive = false; };
  }
  const name = h('input', { id: 'account-name', name: 'username', type: 'text', required: true, maxlength: 40, autocomplete: 'username', value: store.name() });
  const password = h('input', {
    id: 'account-password', name: 'password', type: 'password', required: true,
    autocomplete: up ? 'new-password' : 'current-password', 'aria-describedby': up ? 'password-hint' : null,
  });
  const error = h('p', { class: 'error', role: 'alert', id: 'account-error', hidden: true });
  const submit = h('button', { type: 'submit', class: 'primary', id: up ? 'signup' : 'signin' }, up ? t('Create account') : t('Sign in'));

  async function onSubmit(ev) {
    ev.preventDefault();
    clearError(error);
    const n = name.value.trim();
    if (!n || !password.value) {
      showError(error, up ? t('Choose a name and a password.') : t('Type your name and your password.'));
      (n ? password : name).focus();
      return;
    }
    if (up && [...password.value].length < 8) {
      showError(error, t('Choose a password of 8 characters or more: a few words are easy to remember and hard to guess.'));
      password.focus();
      return;
    }
    submit.disabled = true;
    try {
      if (up) await api.signUp(n, password.value);
      const s = await api.signIn(n, password.value);
      if (!alive) return;
      store.setSession({ token: s.token, name: s.name, expires_at: s.expires_at });
      // The lobby shows the welcome; a table or a page the player came from needs none.
      if (/^#?\/?$/.test(back)) setFlash(up ? t('Welcome, {name}: your account is ready and you are signed in.', { name: s.name }) : t('Signed in as {name}.', { name: s.name }));
      navigate(back);
    } catch (e) {
      if (!alive) return;
      showError(error, accountWords(e));
      submit.disabled = false;
      (e.code === 'name_taken' ? name : password).focus();
    }
  }

  replace(root, h('section', { class: 'panel account-page', 'aria-labelledby': 'account-title' },
    h('h1', { id: 'account-title' }, up ? t('Create an account') : t('Sign in')),
    h('p', { class: 'lead' }, t('An account keeps your games on every device and gives you a rating. You never need one to play: '),
      h('a', { href: '#/', id: 'play-now' }, t('play now without an account')), '.'),
    h('form', { class: 'account-form', id: 'account-form', onsubmit: onSubmit },
      field(t('Name'), name),
      field(t('Password'), password, up ? t('At least 8 characters. No email is asked, so write it down: nobody can reset it.') : null),
      error,
      h('div', { class: 'actions' }, submit)),
    h('p', { class: 'switch' }, up ? t('Have an account? ') : t('New here? '),
      h('a', { href: up ? '#/signin' : '#/signup', id: up ? 'to-signin' : 'to-signup' }, up ? t('Sign in') : t('Create an account')))));
  return () => { alive = false; };
}

/** A refused account request in players' words (a name refused by the server's rules as it says). */
function accountWords(e) {
  if (e.code === 'bad_value' && /password/i.test(e.message)) return t('Choose a password of 8 characters or more (at most 1024).');
  if (e.code === 'bad_value') return `${t('That name cannot be used.')} ${e.message.replace(/"name"/g, 'A name')}`;
  return inPlayersWords(e);
}

/**
 * Mounts the account page in `root`: who is signed in, a link to their profile, sign out and
 * sign out everywhere, the password change, and the account's deletion (asked first). Returns a
 * teardown function.
 */
export function mountAccount(root, navigate) {
  let alive = true;
  document.title = t('Your account · City card games');
  const s = store.session();
  if (!s) {
    replace(root, h('section', { class: 'panel account-page', 'aria-labelledby': 'account-title' },
      h('h1', { id: 'account-title' }, t('Your account')),
      h('p', {}, t('You are not signed in. ')), h('div', { class: 'actions' },
        h('a', { class: 'button primary', href: '#/signin' }, t('Sign in')), h('a', { class: 'button', href: '#/' }, t('Play without an account')))));
    return () => { alive = false; };
  }

  /** Ends the session(s) here and on the server (an ended session is forgotten all the same). */
  async function signOut(everywhere, btn, err) {
    btn.disabled = true;
    try {
      await (everywhere ? api.signOutEverywhere(s.token) : api.signOut(s.token));
    } catch (e) {
      if (e.status !== 401) {
        if (alive) { showError(err, inPlayersWords(e)); btn.disabled = false; }
        return;
      }
    }
    store.forgetSession();
    setFlash(everywhere ? t('You are signed out on every device.') : t('You are signed out.'));
    navigate('#/');
  }
  const outError = h('p', { class: 'error', role: 'alert', id: 'signout-error', hidden: true });
  const outBtn = h('button', { type: 'button', id: 'signout', onclick: () => signOut(false, outBtn, outError) }, t('Sign out'));
  const allBtn = h('button', { type: 'button', class: 'ghost', id: 'signout-all', 'aria-describedby': 'signout-all-hint', onclick: () => signOut(true, allBtn, outError) }, t('Sign out everywhere'));

  // The password change.
  const oldPw = h('input', { id: 'old-password', type: 'password', required: true, autocomplete: 'current-password' });
  const newPw = h('input', { id: 'new-password', type: 'password', required: true, autocomplete: 'new-password', 'aria-describedby': 'new-password-hint' });
  const pwError = h('p', { class: 'error', role: 'alert', id: 'password-error', hidden: true });
  const pwDone = h('p', { class: 'done', role: 'status', id: 'password-done' });
  const pwBtn = h('button', { type: 'submit', class: 'primary', id: 'change-password' }, t('Change password'));
  async function changePassword(ev) {
    ev.preventDefault();
    clearError(pwError);
    pwDone.textContent = '';
    if ([...newPw.value].length < 8) {
      showError(pwError, t('Choose a new password of 8 characters or more.'));
      newPw.focus();
      return;
    }
    pwBtn.disabled = true;
    try {
      const r = await api.changePassword(s.token, oldPw.value, newPw.value);
      if (!alive) return;
      oldPw.value = '';
      newPw.value = '';
      pwDone.textContent = r.sessions_ended
        ? tn(r.sessions_ended, 'Your password is changed, and your other device is signed out.', 'Your password is changed, and your other {count} devices are signed out.')
        : t('Your password is changed.');
    } catch (e) {
      if (!alive) return;
      showError(pwError, accountWords(e));
      (e.code === 'wrong_password' ? oldPw : newPw).focus();
    }
    pwBtn.disabled = false;
  }

  // The deletion, asked first.
  const delBox = h('div', { id: 'delete-box' });
  const delPw = h('input', { id: 'delete-password', type: 'password', required: true, autocomplete: 'current-password' });
  const delError = h('p', { class: 'error', role: 'alert', id: 'delete-error', hidden: true });
  function drawDelete(asking) {
    if (!asking) {
      replace(delBox, h('button', { type: 'button', class: 'danger-outline', id: 'delete-account', onclick: () => { drawDelete(true); delPw.focus(); } }, t('Delete my account…')));
      return;
    }
    const yes = h('button', { type: 'submit', class: 'danger', id: 'delete-yes' }, t('Delete my account for good'));
    replace(delBox, h('form', {
      class: 'seat-ask', id: 'delete-ask', role: 'group', 'aria-labelledby': 'delete-q',
      onsubmit: async (ev) => {
        ev.preventDefault();
        clearError(delError);
        if (!delPw.value) { showError(delError, t('Type your password to confirm.')); delPw.focus(); return; }
        yes.disabled = true;
        try {
          await api.deleteAccount(s.token, delPw.value);
        } catch (e) {
          if (!alive) return;
          showError(delError, accountWords(e));
          yes.disabled = false;
          delPw.focus();
          return;
        }
        store.forgetSession();
        setFlash(t('The account {name} is deleted. You can still play without an account.', { name: s.name }));
        navigate('#/');
      },
      onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); drawDelete(false); delBox.querySelector('button')?.focus(); } },
    },
    h('p', { id: 'delete-q' }, t('Delete the account {name} for good? This cannot be undone. Your finished games keep their results under the name "deleted player", your ratings are gone, and anyone may take the name {name}.', { name: s.name })),
    field(t('Your password, to confirm'), delPw),
    delError,
    h('div', { class: 'actions' }, yes,
      h('button', { type: 'button', class: 'ghost', id: 'delete-no', onclick: () => { drawDelete(false); delBox.querySelector('button')?.focus(); } }, t('Keep my account')))));
  }
  drawDelete(false);

  replace(root, h('section', { class: 'account-page stack', 'aria-labelledby': 'account-title' },
    h('div', { class: 'panel' },
      h('h1', { id: 'account-title' }, t('Your account')),
      h('p', {}, `${t('Signed in as {name}.', { name: s.name })} `, h('a', { href: `#/players/${encodeURIComponent(s.name)}`, id: 'my-profile' }, t('Your profile and ratings')), ' · ',
        h('a', { href: '#/', id: 'my-games' }, t('Your games are in the lobby'))),
      h('div', { class: 'actions' }, outBtn, allBtn),
      h('p', { class: 'hint', id: 'signout-all-hint' }, t('Sign out everywhere ends your sign-in on every device, this one too.')),
      outError),
    h('form', { class: 'panel account-form', id: 'password-form', onsubmit: changePassword, 'aria-labelledby': 'password-title' },
      h('h2', { id: 'password-title' }, t('Change your password')),
      field(t('Current password'), oldPw),
      field(t('New password'), newPw, t('At least 8 characters. Your other devices are signed out.')),
      pwError, pwDone,
      h('div', { class: 'actions' }, pwBtn)),
    h('section', { class: 'panel danger-zone', 'aria-labelledby': 'delete-title' },
      h('h2', { id: 'delete-title' }, t('Delete your account')),
      h('p', { class: 'hint' }, t('Your games stay in the records of the people you played with.')),
      delBox)));
  return () => { alive = false; };
}
