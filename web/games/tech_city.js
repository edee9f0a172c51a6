// tech_city.js: Tech City's module of the page, registered in games/index.js: what the lobby, the
// rules page and the footer say of it, its stylesheet, and the doors to its code under tech_city/,
// each loaded only when it is opened: its part of the table (table.js, with city.js and
// choice.js), its replay board, points breakdown and card reference (boards.js).

import { t } from '../i18n.js';

export default {
  lead: t("Build companies into one shared grid, then use any card's effect. Six rounds; most points wins."),
  rules: 'tech_city.md',
  credit: t("Tech City · after Benjamin Cheung's rules"),
  styles: ['games/grid.css', 'games/tech_city/tech.css'],
  className: 'tech',
  score: { short: t('pts'), head: t('Scored for') },
  table: () => import('./tech_city/table.js').then((m) => m.load()),
  replay: (nameOf) => import('./tech_city/boards.js').then((m) => m.replayBoard(nameOf)),
  breakdown: (id) => import('./tech_city/boards.js').then((m) => m.breakdown(id)),
  cards: () => import('./tech_city/boards.js').then((m) => m.cardShape),
};
