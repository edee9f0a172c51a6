// app.js: the page's entry point: a hash router between the lobby (#/) and a game's table
// (#/game/ID), mounting one view at a time and tearing the last one down (its live stream too).

import { mountLobby } from './lobby.js';
import { mountGame } from './game.js';
import { loadCatalog } from './cards.js';

const root = document.getElementById('app');
let teardown = null;

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  teardown?.();
  teardown = null;
  const m = /^#\/game\/([A-Za-z0-9_-]{1,64})\/?$/.exec(location.hash);
  document.body.dataset.view = m ? 'game' : 'lobby';
  if (m) teardown = mountGame(root, m[1], navigate);
  else {
    document.title = 'The City';
    teardown = mountLobby(root, navigate);
  }
  root.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

window.addEventListener('hashchange', route);
document.querySelector('.skip')?.addEventListener('click', (e) => {
  e.preventDefault(); // a plain #app link would change the route
  root.focus();
});
loadCatalog().catch(() => null); // warm the card catalog for the table
route();
