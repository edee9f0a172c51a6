// Tech City's public log in players' words (web/games/tech_city/data.js techLog), run in Node
// without a daemon or a browser: a card an effect acts on is named with its owner, followed
// through builds, replacements, swaps and markers (issue 27, item 11: "who did what to whom").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const deck = JSON.parse(readFileSync(join(ROOT, 'cards', 'tech_city.json'), 'utf8'));
// The page reads the catalog from GET /api/v1/cards?game=tech_city; here from the card file.
globalThis.fetch = async () => new Response(JSON.stringify({ cards: deck.cards }), { status: 200 });
const { loadTechCatalog, techLog } = await import('../../web/games/tech_city/data.js');
await loadTechCatalog();

const names = (s) => ['Ann', 'Bot 2', 'Bot 3'][s];
const slug = (domain) => deck.cards.find((c) => c.domain === domain && c.id !== deck.seed).id;
const name = (id) => deck.cards.find((c) => c.id === id).name;
const lines = (events) => techLog(events.map((e, i) => ({ seq: i + 1, round: 1, ...e })), names).map((l) => l.text);

test('an expelled company is named with its owner and the player who expelled it', () => {
  const tech = slug('technology');
  const got = lines([
    { type: 'built', seat: 0, card: tech, id: 7, x: 1, y: 0, paid: 1, points: 1, wild: false },
    { type: 'effect', seat: 2, card: 'x', x: 0, y: 0, free: false, effect: 'expel', owner_first: false },
    { type: 'expelled', seat: 2, card: tech, id: 7, x: 1, y: 0 },
  ]);
  assert.ok(got.includes(`Bot 3 expelled Ann's ${name(tech)} from the game.`), got.join('\n'));
});

test('a replaced card goes to the pile in its owner\'s name and its replacement keeps the owner', () => {
  const [a, b] = deck.cards.filter((c) => c.domain === 'science').map((c) => c.id);
  const got = lines([
    { type: 'built', seat: 1, card: a, id: 3, x: 0, y: 1, paid: 0, points: 1, wild: false },
    { type: 'discarded', card: a, id: 3 },
    { type: 'placed', seat: 0, card: b, id: 9, x: 0, y: 1, owner: 1 },
  ]);
  assert.ok(got.includes(`Bot 2's ${name(a)} was replaced and went to the discard pile.`), got.join('\n'));
  assert.ok(got.includes(`Ann put Bot 2's ${name(b)} into play.`), got.join('\n'));
});

test('a service is neutral; a marker moved says whose card it was and whose it is now', () => {
  const svc = slug('service');
  const tech = slug('technology');
  const got = lines([
    { type: 'built', seat: 0, card: svc, id: 4, x: 0, y: 1, paid: 0, points: 1, wild: false },
    { type: 'built', seat: 1, card: tech, id: 5, x: 1, y: 1, paid: 0, points: 1, wild: false },
    { type: 'moved', seat: 2, card: svc, id: 4, x: 1, y: 1, owner: null },
    { type: 'marker', seat: 2, card: tech, id: 5, x: 1, y: 1, owner: null },
    { type: 'marker', seat: 2, card: svc, id: 4, x: 0, y: 1, owner: 2 },
    { type: 'expelled', seat: 0, card: svc, id: 4, x: 0, y: 1 },
  ]);
  assert.ok(got.includes(`Bot 3 moved the neutral ${name(svc)}.`), got.join('\n'));
  assert.ok(got.includes(`Bot 3 took the marker off Bot 2's ${name(tech)}.`), got.join('\n'));
  assert.ok(got.includes(`Bot 3 put a marker on ${name(svc)}: it now belongs to Bot 3.`), got.join('\n'));
  assert.ok(got.includes(`Ann expelled Bot 3's ${name(svc)} from the game.`), got.join('\n'));
});

test('a wild card expelled from a hand, and a card the log never placed, are named alone', () => {
  const got = lines([
    { type: 'expelled', seat: 1, card: 'wild', id: 50 },
    { type: 'expelled', seat: 0, card: deck.seed, id: 0, x: 0, y: 0 },
  ]);
  assert.ok(got.includes(`Bot 2's ${name('wild')} left the game.`), got.join('\n'));
  assert.ok(got.includes(`Ann expelled ${name(deck.seed)} from the game.`), got.join('\n'));
});
