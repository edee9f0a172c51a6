// lobby.js: the lobby: create a game (name, seats 2-5, which seats are greedy or random bots,
// target VP, optional time per step) and the list of games (open ones first, bots marked) with
// Join, Resume or Watch and a share link for each.

import { api, createAndRemember, store } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { copyButton, shareUrl, showError, clearError } from './ui.js';

const SEAT_KINDS = [['person', 'Person'], ['greedy', 'Greedy bot'], ['random', 'Random bot']];

/** Mounts the lobby in `root`; returns a teardown function. */
export function mountLobby(root, navigate) {
  const last = store.lastSettings();
  const saved = {
    seats: last?.seats ?? 4,
    kinds: last?.kinds ?? ['person', 'greedy', 'greedy', 'greedy', 'greedy'],
    target: last?.target_vp ?? 50,
    turn: last?.turn_seconds ?? '',
  };
  let seats = saved.seats;
  const kinds = [...saved.kinds];
  while (kinds.length < 5) kinds.push('greedy');
  kinds[0] = 'person';

  const nameInput = h('input', {
    id: 'name', name: 'name', type: 'text', required: true, maxlength: 40, autocomplete: 'nickname',
    placeholder: 'Your name', value: store.name(), 'aria-describedby': 'name-hint',
  });
  const seatsSelect = h('select', { id: 'seats', name: 'seats', onchange: () => { seats = Number(seatsSelect.value); drawSeats(); } },
    [2, 3, 4, 5].map((n) => h('option', { value: n, selected: n === seats }, `${n} players`)));
  const seatList = h('ol', { class: 'seat-list', id: 'seat-list' });
  const targetInput = h('input', { id: 'target', name: 'target', type: 'number', min: 1, max: 500, value: saved.target, inputmode: 'numeric' });
  const turnInput = h('input', { id: 'turn', name: 'turn', type: 'number', min: 5, max: 86400, value: saved.turn, placeholder: 'no limit', inputmode: 'numeric' });
  const formError = h('p', { class: 'error', role: 'alert', id: 'create-error', hidden: true });
  const createBtn = h('button', { type: 'submit', class: 'primary', id: 'create' }, 'Create game');

  function drawSeats() {
    replace(seatList, Array.from({ length: seats }, (_, i) => {
      if (i === 0) return h('li', { class: 'seat-row' }, h('span', { class: 'seat-no' }, '1'), h('span', { class: 'seat-you' }, 'You'));
      const sel = h('select', {
        id: `seat-kind-${i}`, 'aria-label': `Seat ${i + 1}`,
        onchange: () => { kinds[i] = sel.value; },
      }, SEAT_KINDS.map(([v, t]) => h('option', { value: v, selected: kinds[i] === v }, t)));
      return h('li', { class: 'seat-row' }, h('span', { class: 'seat-no' }, String(i + 1)), sel);
    }));
  }
  drawSeats();

  async function onCreate(ev) {
    ev.preventDefault();
    clearError(formError);
    const name = nameInput.value.trim();
    if (!name) {
      showError(formError, 'Type your name first: it is what the other players see.');
      nameInput.focus();
      return;
    }
    const chosen = kinds.slice(0, seats);
    const bots = chosen.slice(1).filter((k) => k !== 'person');
    const settings = {
      name, seats, bots, kinds: chosen,
      target_vp: Number(targetInput.value) || 50,
      turn_seconds: Number(turnInput.value) || null,
    };
    createBtn.disabled = true;
    try {
      const id = await createAndRemember(settings);
      navigate(`#/game/${id}`);
    } catch (e) {
      showError(formError, e.message);
      createBtn.disabled = false;
    }
  }

  const form = h('form', { class: 'panel create', id: 'create-form', onsubmit: onCreate, 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title' }, 'New game'),
    h('label', { class: 'field' }, h('span', {}, 'Your name'), nameInput),
    h('p', { class: 'hint', id: 'name-hint' }, 'Creating a game gives you the first seat.'),
    h('div', { class: 'field-row' },
      h('label', { class: 'field' }, h('span', {}, 'Players'), seatsSelect),
      h('label', { class: 'field' }, h('span', {}, 'Target VP'), targetInput),
      h('label', { class: 'field' }, h('span', {}, 'Step timer (s)'), turnInput)),
    h('fieldset', { class: 'seats' }, h('legend', {}, 'Seats'), seatList,
      h('p', { class: 'hint' }, 'Bots sit after the people. Seats left to people are joined through the share link.')),
    formError,
    h('div', { class: 'actions' }, createBtn));

  const listBox = h('div', { class: 'games', id: 'games', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading games…'));
  const listError = h('p', { class: 'error', role: 'alert', hidden: true });
  const refreshBtn = h('button', { type: 'button', class: 'ghost small', onclick: () => loadGames() }, 'Refresh');

  replace(root,
    h('section', { class: 'lobby' },
      h('div', { class: 'intro' },
        h('h1', {}, 'The City'),
        h('p', { class: 'lead' }, 'Build a city card by card: every card is a building, and every card pays for the others. First to the target wins.')),
      h('div', { class: 'lobby-grid' },
        form,
        h('section', { class: 'panel list', 'aria-labelledby': 'games-title' },
          h('div', { class: 'panel-head' }, h('h2', { id: 'games-title' }, 'Games'), refreshBtn),
          listError, listBox))));

  let alive = true;
  async function loadGames() {
    try {
      const { games } = await api.listGames();
      if (!alive) return;
      clearError(listError);
      drawGames(games);
    } catch (e) {
      if (alive) showError(listError, e.message);
    }
  }

  function drawGames(games) { keepFocus(listBox, () => drawGamesNow(games)); }

  function drawGamesNow(games) {
    if (!games.length) {
      replace(listBox, h('p', { class: 'muted' }, 'No games yet: create the first one.'));
      return;
    }
    replace(listBox, h('ul', { class: 'game-list' }, games.map((g) => {
      const mine = store.seat(g.id);
      const names = g.names.map((n) => n || null);
      const open = g.status === 'open' && g.seats_free > 0;
      let action;
      if (mine) action = h('a', { class: 'button primary small', href: `#/game/${g.id}`, 'data-focus-key': `go-${g.id}` }, g.status === 'finished' ? 'Results' : 'Resume');
      else if (open) action = h('a', { class: 'button primary small join', href: `#/game/${g.id}`, 'data-game': g.id, 'data-focus-key': `go-${g.id}` }, 'Join');
      else action = h('a', { class: 'button small', href: `#/game/${g.id}`, 'data-focus-key': `go-${g.id}` }, g.status === 'finished' ? 'Results' : 'Watch');
      return h('li', { class: `game-row status-${g.status}`, 'data-game': g.id },
        h('div', { class: 'game-main' },
          h('div', { class: 'game-names' }, names.map((n, i) => (g.bots?.[i]
            ? h('span', { class: 'who bot', title: 'a bot' }, n, h('span', { class: 'tag' }, 'bot'))
            : h('span', { class: n ? 'who' : 'who free' }, n ?? 'open seat')))),
          h('div', { class: 'game-meta' },
            h('span', { class: `status-badge ${g.status}` }, g.status === 'open' ? `open · ${g.seats_free} free` : g.status),
            g.status !== 'open' ? h('span', {}, `round ${g.round}`) : null,
            h('span', {}, `to ${g.target_vp} VP`),
            g.turn_seconds ? h('span', {}, `${g.turn_seconds}s a step`) : null)),
        h('div', { class: 'game-actions' }, action, copyLink(g.id)));
    })));
  }

  function copyLink(gid) {
    const b = copyButton(shareUrl(gid), 'Copy link', 'Copy the share link of this game');
    b.setAttribute('data-focus-key', `copy-${gid}`);
    return b;
  }

  loadGames();
  const timer = setInterval(loadGames, 5000);
  return () => { alive = false; clearInterval(timer); };
}
