// lobby.js: the lobby, headed by the title of the game chosen: create a game (which game, from
// GET /api/v1/rulesets, the server's default unless this browser created another last; name;
// seats within that game's range; which seats are greedy, random or expert bots, always starting
// as one person and the rest bots, and the experts' level with its time budget, from the same
// reply, once an expert seat is chosen; the game's own options, as the same reply declares them
// for the seat count chosen; optional time per step; what is kept from the last game is said,
// with a control back to the defaults), its Create button in sight (held at the bottom of the
// screen while the form is on it, and on a phone a button above the list that leads to it), the
// chosen game's one-line pitch (from its module, games/index.js) and links to its rules and card
// reference; and the list of games (each with its game's title, open ones first, bots marked),
// open and running ones unless finished ones are asked for, paged with More, with Join, Resume,
// Watch or Results and a share link for each. Signed in (account.js), the account plays under its
// name (no name field), a "Rated" box is offered from two seats, and "Your games" (GET
// /api/v1/me/games: open, running, finished) resumes the account's games on any device.

import { api, createAndRemember, loadRulesets, store } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { copyButton, shareUrl, showError, clearError, inPlayersWords } from './ui.js';
import { takeFlash } from './seats.js';
import { gameModule } from './games/index.js';
import { t, N_, num } from './i18n.js';

const BOT_TITLES = { greedy: t('Greedy bot'), random: t('Random bot'), expert: t('Expert bot') };
/** Seats of a new form when neither the last game nor the game's range says otherwise. */
const DEFAULT_SEATS = 4;
/**
 * The clock a table gets unless asked otherwise, as Board Game Arena's "real-time": this many
 * seconds a decision (the server forces the rules' default when it runs out, and after two the
 * others may hand the seat to a bot), when other people sit at the table; alone against bots
 * there is nobody to wait for, so no clock. A client of the API chooses its own (no limit unless
 * it sends turn_seconds).
 */
export const DEFAULT_TURN_SECONDS = 90;
/** The clocks offered: [value, words]; 'auto' is the default above. */
const CLOCKS = [
  ['auto', t('Real-time: {n} s a decision', { n: DEFAULT_TURN_SECONDS })],
  ['300', t('Real-time: 5 minutes a decision')],
  ['3600', t('Turn-based: 1 hour a decision')],
  ['86400', t('Turn-based: 1 day a decision')],
  ['none', t('No time limit')],
];
/** Games asked of the server per page of the lobby, and shown more per press of More. */
const PAGE = 20;
/** The lobby's heading before the server's games are known. */
const NEUTRAL_TITLE = t('City card games');
/** The server's own words the lobby shows (GET /api/v1/rulesets: levels, options), said with t(). */
export const SERVER_WORDS = [N_('Easy'), N_('Normal'), N_('Expert'), N_('Points to win'), N_('Tech Decks'), N_('Money to win'),
  N_('The game ends after the round in which a player reaches this many victory points.'),
  N_('How many Tech Decks are shuffled together: two are suggested with 5 or 6 players, one below.'),
  N_('The game ends after the round in which a player first has this much money (Solitaire has no target).')];
/** A game's status in words ("playing", "finished" ...). */
const STATUS = { open: N_('open'), playing: N_('playing'), finished: N_('finished'), cancelled: N_('cancelled'), expired: N_('expired') };
const statusWord = (s) => (STATUS[s] ? t(STATUS[s]) : s);
/** Whether a listed game has ended (the list hides them unless asked). */
const ended = (g) => g.status !== 'open' && g.status !== 'playing';

/** A level of the expert for people, from GET /api/v1/rulesets: "Normal: thinks up to 40 ms a move". */
function levelLabel(l) {
  const time = l.think_ms >= 1000 ? `${num(Number((l.think_ms / 1000).toFixed(1)))} s` : `${num(l.think_ms)} ms`;
  return t('{level}: thinks up to {time} a move', { level: t(l.title), time });
}
/** Option `o`'s range and default at `seats` seats (GET /api/v1/rulesets, options[].by_players). */
const rangeAt = (o, seats) => o.by_players?.find((b) => b.players === seats) ?? null;

/**
 * The time bank a table's seats get with `turn` seconds a decision: three decisions' worth on a
 * real-time clock (BGA's "real-time": a player may think long now and then), none on a
 * turn-based one (hours a move need no extra). docs/rules.md "Timers and defaults".
 */
export function bankSeconds(turn) {
  return turn && turn <= 300 ? 3 * turn : null;
}

/** The turn_seconds to create with for clock choice `clock` (CLOCKS) with `people` people seated. */
function turnSeconds(clock, people) {
  if (clock === 'none') return null;
  if (clock === 'auto') return people > 1 ? DEFAULT_TURN_SECONDS : null;
  return Number(clock) || null;
}

/** Mounts the lobby in `root`; returns a teardown function. */
export function mountLobby(root, navigate) {
  // The last game created here sets the game, its seat count, options and timer again (the form
  // says so, with a way back to the defaults); the seats' kinds always start as the defaults.
  let last = store.lastSettings();
  const session = store.session(); // the signed-in account ({token, name}), or null
  let rulesets = new Map(); // the server's games by id, once GET /api/v1/rulesets is read
  let serverDefault = null; // the game the server offers first, and its expert level
  let serverLevel = null;
  let levels = []; // the expert's levels, from the server; none until they are known
  let level = last?.bot_level ?? null; // the level chosen (null: the server's default)
  const wanted = last?.game ?? null; // the game created last from this browser, chosen again
  let game = wanted;
  const rs = () => rulesets.get(game) ?? null;
  const saved = {
    seats: last?.seats ?? DEFAULT_SEATS,
    // the options chosen last, by name (settings saved before options were declared: target_vp)
    options: last?.options ?? (last?.target_vp ? { target_vp: last.target_vp } : {}),
    // the clock chosen last: a CLOCKS value ('auto' unless another was chosen)
    clock: last?.clock ?? (last?.turn_seconds ? String(last.turn_seconds) : 'auto'),
  };
  let wantSeats = saved.seats; // what the user picked; `seats` is that within the game's range
  let seats = wantSeats;
  const kinds = ['person']; // seat i's kind; a seat not set yet is the game's first bot

  const nameInput = h('input', {
    id: 'name', name: 'name', type: 'text', required: true, maxlength: 40, autocomplete: 'nickname',
    placeholder: t('Your name'), value: store.name(), 'aria-describedby': 'name-hint',
  });
  let touched = false;
  const gameSelect = h('select', { id: 'game', name: 'game', onchange: () => { touched = true; game = gameSelect.value; drawGame(); } });
  const seatsSelect = h('select', { id: 'seats', name: 'seats', onchange: () => { seats = wantSeats = Number(seatsSelect.value); drawSeats(); } });
  const seatList = h('ol', { class: 'seat-list', id: 'seat-list' });
  let optionValues = { ...saved.options }; // what the user typed, by option name
  const turnInput = h('select', { id: 'turn', name: 'turn', 'aria-describedby': 'turn-hint' },
    [...CLOCKS, ...(CLOCKS.some(([v]) => v === saved.clock) ? [] : [[saved.clock, t('{n} s a decision', { n: saved.clock })]])]
      .map(([v, words]) => h('option', { value: v, selected: v === saved.clock }, words)));
  const formError = h('p', { class: 'error', role: 'alert', id: 'create-error', hidden: true });
  const createBtn = h('button', { type: 'submit', class: 'primary', id: 'create' }, t('Create game'));
  const heading = h('h1', { id: 'lobby-title' }, NEUTRAL_TITLE);
  const createTitle = h('h2', { id: 'create-title' }, t('New game'));
  const keptNote = h('p', { class: 'kept-note', id: 'kept-note', hidden: true });
  const optionFields = h('span', { class: 'option-fields', id: 'option-fields' });
  const lead = h('p', { class: 'lead', id: 'game-lead' });
  const learnLinks = h('p', { class: 'learn-links', id: 'learn-links' });
  const levelSelect = h('select', { id: 'bot-level', name: 'bot_level', 'aria-describedby': 'bot-level-hint', onchange: () => { level = levelSelect.value; } });
  const levelField = h('div', { id: 'bot-level-field', hidden: true },
    h('label', { class: 'field' }, h('span', {}, t('Expert level')), levelSelect),
    h('p', { class: 'hint', id: 'bot-level-hint' }, t('How hard the expert bots think. Suggest always asks the strongest level.')));

  /** The level select, shown while a seat is an expert bot and the server's levels are known. */
  function drawLevel() {
    const shown = levels.length > 0 && kinds.slice(1, seats).includes('expert');
    levelField.hidden = !shown;
    levelSelect.disabled = !shown;
    if (!levels.some((l) => l.id === level)) level = null;
    replace(levelSelect, levels.map((l) => h('option', { value: l.id, selected: l.id === level }, levelLabel(l))));
    if (level) levelSelect.value = level;
  }

  /** The chooser, the seat range, the bots and the target field follow the chosen game. */
  function drawGame() {
    if (!rulesets.size) { // the server's games are not known yet: nothing to choose
      for (const el of [gameSelect, seatsSelect, seatList, optionFields, learnLinks]) replace(el);
      lead.textContent = t('Loading the games this server hosts…');
      return;
    }
    if (!rulesets.has(game)) game = serverDefault;
    const r = rs();
    heading.textContent = r.title;
    createTitle.textContent = t('New game of {title}', { title: r.title });
    document.title = t('{title} · Lobby', { title: r.title });
    replace(gameSelect, [...rulesets.values()].map((x) => h('option', { value: x.id, selected: x.id === game }, x.title)));
    gameSelect.closest('.field')?.toggleAttribute('hidden', rulesets.size < 2);
    const counts = [];
    for (let n = Math.max(1, r.min_players); n <= r.max_players; n++) counts.push(n);
    seats = Math.min(Math.max(wantSeats, counts[0]), counts[counts.length - 1]);
    replace(seatsSelect, counts.map((n) => h('option', { value: n, selected: n === seats }, n === 1 ? t('1 (solo)') : t('{n} players', { n }))));
    // The game's own pitch, from its module; a game without one is said by its title and seats.
    const plain = r.min_players === r.max_players ? t('Play {title}: {n} players.', { title: r.title, n: r.min_players })
      : t('Play {title}: {min} to {max} players.', { title: r.title, min: r.min_players, max: r.max_players });
    gameModule(r.id).then((m) => m.lead, () => null).then((text) => { if (game === r.id) lead.textContent = text ?? plain; });
    // The rules and the cards of the game chosen (their pages switch between the games).
    replace(learnLinks, t('New to {title}? ', { title: r.title }),
      h('a', { href: `#/rules/${r.id}`, id: 'lobby-rules', 'data-game': r.id }, t('Read the rules of {title}', { title: r.title })), ' · ',
      h('a', { href: `#/cards/${r.id}`, id: 'lobby-cards', 'data-game': r.id }, t('Every card')));
    drawSeats();
    drawKept();
  }

  /**
   * The line that says the form started from the last game created here (its game, seat count,
   * options or timer, where they differ from the defaults), with a Reset; hidden otherwise.
   */
  function drawKept() {
    const r = last?.game ? rulesets.get(last.game) : rulesets.get(serverDefault);
    // Once another game is chosen in the form, the note would describe a form no longer shown.
    const kept = !!last && !!r && r.id === game && ((last.game && last.game !== serverDefault) || (last.seats && last.seats !== DEFAULT_SEATS)
      || Object.keys(saved.options).length > 0 || saved.clock !== 'auto');
    keptNote.hidden = !kept;
    if (!kept) { replace(keptNote); return; }
    const n = Math.min(Math.max(last.seats ?? DEFAULT_SEATS, Math.max(1, r.min_players)), r.max_players);
    const what = [r.title, n === 1 ? t('solo') : t('{n} players', { n })];
    if (saved.clock !== 'auto') what.push(turnInput.selectedOptions[0]?.textContent ?? '');
    replace(keptNote, t('Set up like your last game ({what}); the seats start as bots again. ', { what: what.join(', ') }),
      h('button', { type: 'button', class: 'ghost small', id: 'reset-form', onclick: resetForm }, t('Reset to defaults')));
  }

  /** Back to the defaults: the server's first game, its seats, options and level; the default clock. */
  function resetForm() {
    last = null;
    store.setLastSettings(null);
    game = serverDefault;
    touched = true;
    wantSeats = DEFAULT_SEATS;
    saved.options = {};
    saved.clock = 'auto';
    optionValues = {};
    turnInput.value = 'auto';
    level = serverLevel;
    kinds.length = 1;
    drawGame();
    (gameSelect.closest('.field')?.hidden ? seatsSelect : gameSelect).focus();
  }

  /** One field per option the game declares, with its range at the seat count chosen; an option
   * with a single value at that count (Tech City's decks below 5 players) is no choice: hidden. */
  function drawOptions() {
    replace(optionFields, (rs().options ?? []).map((o) => {
      const r = rangeAt(o, seats);
      if (!r || r.min === r.max) return null;
      const v = Number(optionValues[o.name]);
      const value = Number.isInteger(v) && v >= r.min && v <= r.max ? v : r.default;
      const input = r.max - r.min <= 3
        ? h('select', { id: `opt-${o.name}`, name: o.name, onchange: () => { optionValues[o.name] = Number(input.value); } },
          Array.from({ length: r.max - r.min + 1 }, (_, i) => r.min + i).map((n) => h('option', { value: n, selected: n === value }, String(n))))
        : h('input', {
          id: `opt-${o.name}`, name: o.name, type: 'number', min: r.min, max: r.max, value, inputmode: 'numeric',
          onchange: () => { optionValues[o.name] = Number(input.value); },
        });
      return h('label', { class: 'field', title: o.description ? t(o.description) : '' }, h('span', {}, o.title ? t(o.title) : o.name), input);
    }));
  }

  /** The options to send: each shown field's value (a hidden one takes the server's default). */
  function chosenOptions() {
    const out = {};
    for (const o of rs().options ?? []) {
      const r = rangeAt(o, seats);
      const el = optionFields.querySelector(`#opt-${o.name}`);
      if (!r || !el) continue;
      const v = Number(el.value);
      out[o.name] = Number.isInteger(v) && v >= r.min && v <= r.max ? v : r.default;
    }
    return out;
  }

  function drawSeats() {
    const bots = rs().bots?.length ? rs().bots : ['greedy'];
    const choices = [['person', t('Person')], ...bots.map((b) => [b, BOT_TITLES[b] ?? t('{Kind} bot', { Kind: `${b[0].toUpperCase()}${b.slice(1)}` })])];
    replace(seatList, Array.from({ length: seats }, (_, i) => {
      if (i === 0) return h('li', { class: 'seat-row' }, h('span', { class: 'seat-no' }, '1'), h('span', { class: 'seat-you' }, t('You')));
      if (!choices.some(([v]) => v === kinds[i])) kinds[i] = bots[0]; // unset or not in this game
      const sel = h('select', {
        id: `seat-kind-${i}`, 'aria-label': t('Seat {n}', { n: i + 1 }),
        onchange: () => { kinds[i] = sel.value; drawLevel(); },
      }, choices.map(([v, t]) => h('option', { value: v, selected: kinds[i] === v }, t)));
      return h('li', { class: 'seat-row' }, h('span', { class: 'seat-no' }, String(i + 1)), sel);
    }));
    drawOptions();
    drawLevel();
    drawRated();
  }

  /** The Rated box: offered only signed in and with two seats or more (a rated game's rule). */
  function drawRated() {
    const shown = !!session && seats >= 2;
    ratedField.hidden = !shown;
    ratedHint.hidden = !shown;
    ratedBox.disabled = !shown;
  }

  async function onCreate(ev) {
    ev.preventDefault();
    clearError(formError);
    if (!rulesets.size) {
      // Pressed before the server's games were read: read them (the form is drawn from them) first.
      try { await readRulesets(); } catch (e) { showError(formError, t('The games this server hosts could not be read: {why}', { why: e.message })); return; }
      if (!alive) return;
    }
    const name = session ? session.name : nameInput.value.trim();
    if (!name) {
      showError(formError, t('Type your name first: it is what the other players see.'));
      nameInput.focus();
      return;
    }
    const chosen = kinds.slice(0, seats);
    const bots = chosen.slice(1).filter((k) => k !== 'person');
    const turn = turnSeconds(turnInput.value, chosen.filter((k) => k === 'person').length);
    const settings = {
      game, name, seats, bots, kinds: chosen,
      options: chosenOptions(),
      clock: turnInput.value,
      turn_seconds: turn,
      time_bank_seconds: bankSeconds(turn),
      private: privateBox.checked,
      rated: !ratedField.hidden && ratedBox.checked,
      bot_level: bots.includes('expert') && !levelField.hidden ? levelSelect.value : null,
    };
    createBtn.disabled = true;
    try {
      const id = await createAndRemember(settings);
      navigate(`#/game/${id}`);
    } catch (e) {
      showError(formError, inPlayersWords(e));
      createBtn.disabled = false;
    }
  }

  const privateBox = h('input', { id: 'private', name: 'private', type: 'checkbox', 'aria-describedby': 'private-hint' });
  const ratedBox = h('input', { id: 'rated', name: 'rated', type: 'checkbox', 'aria-describedby': 'rated-hint' });
  const ratedField = h('label', { class: 'check', id: 'rated-field', hidden: true }, ratedBox, h('span', {}, t('Rated game')));
  const ratedHint = h('p', { class: 'hint', id: 'rated-hint', hidden: true }, t("The result changes the players' ratings. Only people signed in to an account can join; bots are rated too."));
  drawGame();

  const form = h('form', { class: 'panel create', id: 'create-form', onsubmit: onCreate, 'aria-labelledby': 'create-title' },
    createTitle,
    keptNote,
    session ? h('p', { class: 'playing-as', id: 'playing-as' }, t('You play as {name}: creating a game gives you the first seat.', { name: session.name }))
      : [h('label', { class: 'field' }, h('span', {}, t('Your name')), nameInput),
        h('p', { class: 'hint', id: 'name-hint' }, t('Creating a game gives you the first seat. '),
          h('a', { href: '#/signin', id: 'form-signin' }, t('Sign in')), t(' to keep your games on every device; you never need to.'))],
    h('label', { class: 'field', hidden: true }, h('span', {}, t('Game')), gameSelect),
    h('div', { class: 'field-row' },
      h('label', { class: 'field' }, h('span', {}, t('Players')), seatsSelect),
      optionFields,
      h('label', { class: 'field field-wide' }, h('span', {}, t('Time per decision')), turnInput)),
    h('p', { class: 'hint', id: 'turn-hint' }, t('When time runs out, the rules decide for the player. Real-time tables add a time bank of three decisions for each player. No clock alone against bots.')),
    h('fieldset', { class: 'seats' }, h('legend', {}, t('Seats')), seatList,
      h('p', { class: 'hint' }, t('Bots sit after the people. Seats left to people are joined through the share link.')),
      levelField),
    h('label', { class: 'check' }, privateBox, h('span', {}, t('Private table'))),
    h('p', { class: 'hint', id: 'private-hint' }, t('A private table is not listed in the lobby: only people with its link can join or watch.')),
    ratedField, ratedHint,
    formError,
    // held at the bottom of the screen while the form is on it, so it is in sight from the start
    h('div', { class: 'actions create-actions' }, createBtn));

  const listBox = h('div', { class: 'games', id: 'games', 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('Loading games…')));
  const listError = h('p', { class: 'error', role: 'alert', hidden: true });
  const refreshBtn = h('button', { type: 'button', class: 'ghost small', id: 'refresh-games', onclick: () => loadGames() }, t('Refresh'));
  let showEnded = false; // finished games are listed only when asked
  let wantRows = PAGE; // rows to show; More asks for a page more
  const endedBox = h('input', {
    type: 'checkbox', id: 'show-finished', name: 'show_finished',
    onchange: () => { showEnded = endedBox.checked; wantRows = PAGE; loadGames(); },
  });
  const moreBtn = h('button', {
    type: 'button', class: 'ghost', id: 'more-games', hidden: true,
    onclick: () => { wantRows += PAGE; loadGames(); },
  }, t('More games'));

  const listPanel = h('section', { class: 'panel list', id: 'games-panel', 'aria-labelledby': 'games-title' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'games-title' }, t('Games')),
      h('div', { class: 'list-tools' },
        h('label', { class: 'check' }, endedBox, h('span', {}, t('Show finished games'))),
        refreshBtn)),
    listError, listBox, moreBtn);
  const grid = h('div', { class: 'lobby-grid' }, form, listPanel);

  // Signed in: the account's own games, to resume on any device (the session acts for the seat).
  let mineIds = new Set(); // the account's games, for the list's Resume
  let lastMine = null; // the account's games last read
  let mineAll = false; // every finished game of the account shown, not only the last few
  const mineBox = h('div', { class: 'games', id: 'my-games-list', 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('Loading your games…')));
  const minePanel = session ? h('section', { class: 'panel list my-games', id: 'my-games', 'aria-labelledby': 'my-games-title' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'my-games-title' }, t('Your games')),
      h('a', { href: `#/players/${encodeURIComponent(session.name)}`, class: 'small-link', id: 'my-profile-link' }, t('Your ratings'))),
    mineBox) : null;
  /** Reads the account's games and draws them (open, running, then the last finished ones). */
  async function loadMine() {
    if (!session) return;
    try {
      const r = await api.myGames(session.token);
      if (!alive) return;
      const ids = new Set(r.games.map((g) => g.id));
      const changed = ids.size !== mineIds.size || [...ids].some((x) => !mineIds.has(x));
      mineIds = ids;
      lastMine = r.games;
      keepFocus(mineBox, () => drawMine(r.games));
      if (changed && lastGames) drawGames(lastGames); // the list's Resume follows the account's games
    } catch (e) {
      if (!alive) return;
      if (e.status === 401) { // the session ended (signed out everywhere, or expired)
        store.forgetSession();
        replace(mineBox, h('p', { class: 'muted' }, t('Your sign-in has ended. '), h('a', { href: '#/signin' }, t('Sign in again')), t(' to see your games.')));
      } else replace(mineBox, h('p', { class: 'error', role: 'alert' }, `${t('Your games could not be read.')} ${inPlayersWords(e)}`));
    }
  }
  function drawMine(games) {
    if (!games.length) { replace(mineBox, h('p', { class: 'muted', id: 'my-games-empty' }, t('No games yet: the games you create or join signed in show here, on every device.'))); return; }
    const order = { playing: 0, open: 1 };
    const live = games.filter((g) => g.status in order).sort((a, b) => order[a.status] - order[b.status]);
    const done = games.filter((g) => !(g.status in order));
    const shownDone = mineAll ? done : done.slice(0, 3);
    replace(mineBox, h('ul', { class: 'game-list' }, [...live, ...shownDone].map((g) => h('li', { class: `game-row status-${g.status}`, 'data-game': g.id },
      h('div', { class: 'game-main' },
        h('div', { class: 'game-title' }, rulesets.get(g.game)?.title ?? titleOf(g.game)),
        h('div', { class: 'game-meta' },
          h('span', { class: `status-badge ${g.status}` }, g.status === 'open' ? t('waiting for players') : statusWord(g.status)),
          h('span', {}, g.players === 1 ? t('solo') : t('{n} players', { n: g.players })),
          h('span', {}, t('seat {n}', { n: g.seat + 1 })))),
      h('div', { class: 'game-actions' },
        h('a', { class: `button small ${g.status in order ? 'primary' : ''}`, href: `#/game/${g.id}`, 'data-focus-key': `mine-${g.id}`, 'aria-label': g.status in order ? t('Resume your {title} game', { title: rulesets.get(g.game)?.title ?? titleOf(g.game) }) : t('Results of your {title} game', { title: rulesets.get(g.game)?.title ?? titleOf(g.game) }) },
          g.status in order ? t('Resume') : t('Results')))))),
    done.length > shownDone.length ? h('button', { type: 'button', class: 'ghost', id: 'more-mine', onclick: () => { mineAll = true; drawMine(games); } }, t('All {n} finished games', { n: done.length })) : null);
  }
  // On a phone whose list comes first: a button above the list that leads to the form.
  const toCreate = h('button', {
    type: 'button', class: 'primary to-create', id: 'to-create', hidden: true,
    onclick: () => {
      form.scrollIntoView({ block: 'start' });
      (session ? seatsSelect : nameInput).focus({ preventScroll: true });
    },
  }, t('Create a game'));
  const flash = takeFlash(); // e.g. "You left the game" after leaving an open game
  replace(root,
    h('section', { class: 'lobby' },
      flash ? h('p', { class: 'panel notice slim', id: 'lobby-notice', role: 'status' }, flash) : null,
      h('div', { class: 'intro' },
        heading,
        lead, learnLinks, toCreate),
      minePanel,
      grid));

  // One column (a phone): the games list comes before the form while a game is open to join,
  // with the button to the form above it.
  const narrow = matchMedia('(max-width: 760px)');
  function arrange() {
    const listFirst = narrow.matches && (lastGames ?? []).some((g) => g.status === 'open' && g.seats_free > 0);
    toCreate.hidden = !listFirst;
    if (listFirst === (grid.firstElementChild === listPanel)) return;
    // Move the panel that does not hold the focus: moving the focused one would drop the focus.
    const a = document.activeElement;
    if (listFirst) { if (form.contains(a)) grid.prepend(listPanel); else grid.append(form); } else if (listPanel.contains(a)) grid.prepend(form); else grid.append(listPanel);
  }
  narrow.addEventListener('change', arrange);

  let alive = true;
  let lastGames = null;
  /** Reads the server's games and draws the form from them: the game created last from this
   * browser is chosen again, else the server's default. */
  function readRulesets() {
    return loadRulesets().then((d) => {
      if (!alive || !d.rulesets?.length || rulesets.size) return;
      rulesets = new Map(d.rulesets.map((r) => [r.id, r]));
      serverDefault = rulesets.has(d.default) ? d.default : d.rulesets[0].id;
      levels = d.bot_levels ?? [];
      serverLevel = d.default_bot_level ?? null;
      level ??= serverLevel;
      if (!touched) game = wanted && rulesets.has(wanted) ? wanted : serverDefault;
      keepFocus(form, drawGame);
      if (lastGames) drawGames(lastGames); // titles now known
      if (lastMine) keepFocus(mineBox, () => drawMine(lastMine));
    });
  }
  readRulesets().catch(() => { /* tried again with the list of games, and when Create is pressed */ });

  let loading = 0; // the newest load: an older one that answers later is dropped
  /**
   * Reads the lobby's pages from the first until `wantRows` games are shown (finished ones count
   * only when shown) or the server has no more; keeps whether there is more for More.
   */
  async function loadGames() {
    const mine = ++loading;
    try {
      if (!rulesets.size) readRulesets().catch(() => null);
      const games = [];
      let next = null;
      for (let asked = 0; asked < wantRows / PAGE + 4; asked++) {
        const page = await api.listGames({ limit: PAGE, after: next });
        games.push(...page.games);
        next = page.next ?? null;
        if (!next || games.filter((g) => showEnded || !ended(g)).length >= wantRows) break;
      }
      await mineRead; // the account's games first, so that its own show Resume, never Watch first
      if (!alive || mine !== loading) return;
      clearError(listError);
      lastGames = games;
      moreBtn.hidden = !next;
      drawGames(games);
    } catch (e) {
      if (alive && mine === loading) showError(listError, `${t('The games could not be read.')} ${inPlayersWords(e)}`);
    }
  }

  function drawGames(games) { keepFocus(listBox, () => drawGamesNow(games.filter((g) => showEnded || !ended(g)), games.some(ended))); arrange(); }

  /** Draws `games` (those to show); `hidden` says whether finished games were left out. */
  function drawGamesNow(games, hidden) {
    if (!games.length) {
      replace(listBox, h('p', { class: 'muted' }, !showEnded && hidden
        ? t('No game is open or being played now: create one, or show the finished games.')
        : t('No games yet: create the first one.')));
      return;
    }
    replace(listBox, h('ul', { class: 'game-list' }, games.map((g) => {
      const mine = store.seat(g.id) || mineIds.has(g.id);
      const names = g.names.map((n) => n || null);
      const open = g.status === 'open' && g.seats_free > 0;
      let action;
      if (mine) action = h('a', { class: 'button primary small', href: `#/game/${g.id}`, 'data-focus-key': `go-${g.id}` }, g.status === 'finished' ? t('Results') : t('Resume'));
      else if (open) action = h('a', { class: 'button primary small join', href: `#/game/${g.id}`, 'data-game': g.id, 'data-focus-key': `go-${g.id}` }, t('Join'));
      else action = h('a', { class: 'button small', href: `#/game/${g.id}`, 'data-focus-key': `go-${g.id}` }, g.status === 'finished' ? t('Results') : t('Watch'));
      return h('li', { class: `game-row status-${g.status}`, 'data-game': g.id },
        h('div', { class: 'game-main' },
          h('div', { class: 'game-title' }, rulesets.get(g.game)?.title ?? titleOf(g.game)),
          h('div', { class: 'game-names' }, names.map((n, i) => (g.bots?.[i]
            ? h('span', { class: 'who bot', title: t('a bot') }, n, h('span', { class: 'tag' }, t('bot')))
            : h('span', { class: n ? 'who' : 'who free' }, n ?? t('open seat'))))),
          h('div', { class: 'game-meta' },
            h('span', { class: `status-badge ${g.status}` }, g.status === 'open' ? t('open · {n} free', { n: g.seats_free }) : statusWord(g.status)),
            g.status !== 'open' ? h('span', {}, t('round {n}', { n: g.round })) : null,
            ...Object.entries(g.options ?? (g.target_vp ? { target_vp: g.target_vp } : {}))
              .filter(([k]) => isChoice(g, k)).map(([k, v]) => h('span', {}, optionLabel(g.game, k, v))),
            g.turn_seconds ? h('span', {}, clockWords(g.turn_seconds)) : null)),
        h('div', { class: 'game-actions' }, action, copyLink(g.id)));
    })));
  }

  /** Whether option `name` of listed game `g` was a choice at its seat count (worth showing). */
  function isChoice(g, name) {
    const o = (rulesets.get(g.game)?.options ?? []).find((x) => x.name === name);
    const r = o ? rangeAt(o, g.players) : null;
    return name === 'target_vp' || (r !== null && r.min !== r.max);
  }

  /** A listed game's clock in the form's words ("Turn-based: 1 day a decision"). */
  function clockWords(seconds) {
    const offered = CLOCKS.find(([v]) => v === String(seconds) || (v === 'auto' && seconds === DEFAULT_TURN_SECONDS));
    return offered ? offered[1] : t('{n} s a decision', { n: seconds });
  }

  /** An option of a listed game for people: "to 50 VP" for The City's target, "to $170" for
   * SimCity's, else "Title: value". */
  function optionLabel(gid, name, value) {
    if (name === 'target_vp') return t('to {n} VP', { n: value });
    if (gid === 'simcity' && name === 'target') return t('to ${n}', { n: value });
    const o = (rulesets.get(gid)?.options ?? []).find((x) => x.name === name);
    return `${o?.title ? t(o.title) : name}: ${value}`;
  }

  /** A game's id in words, for a game the server's list does not (yet) name. */
  function titleOf(id) {
    return (id ?? '').split('_').map((w) => (w[0]?.toUpperCase() ?? '') + w.slice(1)).join(' ');
  }

  function copyLink(gid) {
    const b = copyButton(shareUrl(gid), t('Copy link'), t('Copy link of this game'));
    b.setAttribute('data-focus-key', `copy-${gid}`);
    return b;
  }

  const mineRead = loadMine(); // settles (never rejects) once the account's games are read or failed
  loadGames();
  const timer = setInterval(() => { loadGames(); loadMine(); }, 5000);
  return () => { alive = false; clearInterval(timer); narrow.removeEventListener('change', arrange); };
}
