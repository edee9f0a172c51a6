// the_city.js: The City's module of the page, registered in games/index.js: what the lobby, the
// rules page and the footer say of it, and the doors to its code under the_city/, each loaded only
// when it is opened: its part of the table (table.js), its replay board, points breakdown and card
// reference (boards.js). Its table's look is in style.css, with the page's own.

import { t } from '../i18n.js';

export default {
  lead: t('Build a city card by card: every card is a building, and every card pays for the others. First to the target wins.'),
  rules: 'rules.md',
  credit: t('The City · a card game by Tom Lehmann'),
  styles: [],
  score: { short: t('VP'), head: t('Building') },
  table: () => import('./the_city/table.js').then((m) => m.load()),
  replay: (nameOf) => import('./the_city/boards.js').then((m) => m.replayBoard(nameOf)),
  breakdown: (id) => import('./the_city/boards.js').then((m) => m.breakdown(id)),
  cards: () => import('./the_city/boards.js').then((m) => m.cardShape),
};
