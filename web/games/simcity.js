// simcity.js: SimCity's module of the page, registered in games/index.js: what the lobby, the
// rules page and the footer say of it, its stylesheets, and the doors to its code under
// simcity/, each loaded only when it is opened: its part of the table (table.js, with city.js),
// its replay board, money breakdown and card reference (boards.js).

import { t } from '../i18n.js';

export default {
  lead: t('Build one shared city block by block; every play pays money, and money is the score. Most money wins.'),
  rules: 'simcity.md',
  credit: t("SimCity: The Card Game · after Mayfair's 1995 rules"),
  styles: ['games/grid.css', 'games/simcity/simcity.css'],
  className: 'sc',
  score: { short: '$', head: t('Money from') },
  table: () => import('./simcity/table.js').then((m) => m.load()),
  replay: (nameOf) => import('./simcity/boards.js').then((m) => m.replayBoard(nameOf)),
  breakdown: (id) => import('./simcity/boards.js').then((m) => m.breakdown(id)),
  cards: () => import('./simcity/boards.js').then((m) => m.cardShape),
};
