// games/index.js: the page's registry of games: every game id this page has a module for, mapped
// to a lazy import() of that module (web/games/ID.js). It is the only file of web/ outside
// web/games/ that names a game; everything else reads the server's ruleset descriptor (GET
// /api/v1/rulesets) or asks here for a game's module. A game the server hosts with no entry here
// is played with the generic module (games/generic.js).

const GAMES = {
  the_city: () => import('./the_city.js'),
  tech_city: () => import('./tech_city.js'),
  simcity: () => import('./simcity.js'),
};

const loaded = new Map();

/**
 * Resolves to the page's module of game `id` (the default export of web/games/ID.js, the generic
 * module for an id not listed here); rejects when it cannot be loaded (a later call tries again).
 */
export function gameModule(id) {
  const load = Object.hasOwn(GAMES, id ?? '') ? GAMES[id] : () => import('./generic.js');
  if (!loaded.has(id)) loaded.set(id, load().then((m) => m.default).catch((e) => { loaded.delete(id); throw e; }));
  return loaded.get(id);
}

/** The ids of the games this page has a module for, in the order above. */
export const knownGames = Object.keys(GAMES);
