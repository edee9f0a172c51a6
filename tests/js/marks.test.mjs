// The page's "new card" marks as pure functions (web/table.js nextSeen with each game's key), run
// in Node without a daemon or a browser: the orders of sights that a live table can meet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextSeen } from '../../web/table.js';
import { freshKey } from '../../web/games/the_city/table.js';

const sight = (prev, view, point, ids) => nextSeen(prev, freshKey(view, point), ids);

test('The City: surveyed cards stay new when the view is read a step behind the hand', () => {
  const before = [1, 2, 3, 4, 5];
  const drawn = [10, 74];
  const after = [...before, ...drawn];
  let seen = sight(null, { round: 1, step: 'build' }, { round: 1, step: 'build' }, before);
  // The hand already holds the survey's cards; the view, read beside it, is still at the build.
  seen = sight(seen, { round: 1, step: 'build' }, { round: 1, step: 'survey' }, after);
  assert.deepEqual(seen.fresh, drawn);
  // The next sight has both at the survey: the marks stay.
  seen = sight(seen, { round: 1, step: 'survey' }, { round: 1, step: 'survey' }, after);
  assert.deepEqual(seen.fresh, drawn, 'the marks stay for the whole survey');
  // The step after: no longer new.
  seen = sight(seen, { round: 2, step: 'build' }, { round: 2, step: 'build' }, [1, 2, 3, 10]);
  assert.deepEqual(seen.fresh, []);
});

test('The City: with no point of its own, the key is the view\'s step', () => {
  assert.equal(freshKey({ round: 3, step: 'hand_limit' }, null), '3-hand_limit');
  assert.equal(freshKey({ round: 3, step: 'build' }, { round: 3, step: 'survey' }), '3-survey');
});
