// The soak's counting, on made-up platform histories: each figure moves for exactly the thing it
// names, so a soak that prints zeros means what it says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerParts, fileName, per100Kills, type ShownMessage, tally, tallyFiles } from './tally.ts';

const whole = (c: number, n: number): ShownMessage => ({ conversation: c, text: answerParts(c, n).join('') });
const preview = (c: number, n: number): ShownMessage => ({
  conversation: c,
  text: answerParts(c, n).slice(0, 2).join(''),
});
const pick = (t: ReturnType<typeof tally>) => ({
  sent: t.sent,
  delivered: t.delivered,
  lost: t.lost,
  duplicated: t.duplicated,
  reordered: t.reordered,
  strayPreviews: t.strayPreviews,
  misrouted: t.misrouted,
  other: t.other,
});

test('every answer once, in order: all zero', () => {
  const t = tally([3, 2], [whole(0, 0), whole(1, 0), whole(0, 1), whole(1, 1), whole(0, 2)]);
  assert.deepEqual(pick(t), {
    sent: 5,
    delivered: 5,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    strayPreviews: 0,
    misrouted: 0,
    other: 0,
  });
});

test('a missing answer is lost, a second copy duplicated, an early later answer reordered', () => {
  const t = tally([4], [whole(0, 0), whole(0, 2), whole(0, 1), whole(0, 2)]);
  assert.deepEqual(pick(t), {
    sent: 4,
    delivered: 3,
    lost: 1,
    duplicated: 1,
    reordered: 1,
    strayPreviews: 0,
    misrouted: 0,
    other: 0,
  });
  assert.deepEqual(
    t.perConversation.map((p) => p.lost),
    [1],
  );
});

const previewLeftShowingTitle =
  'a preview left showing part of an answer is stray; an answer in another conversation is misrouted; anything else ' +
  'is other';
test(previewLeftShowingTitle, () => {
  const t = tally(
    [1, 1],
    [
      preview(0, 0),
      whole(0, 0),
      { conversation: 1, text: whole(0, 0).text },
      { conversation: 1, text: 'Sorry, something went wrong.' },
    ],
  );
  assert.deepEqual(pick(t), {
    sent: 2,
    delivered: 1,
    lost: 1,
    duplicated: 0,
    reordered: 0,
    strayPreviews: 1,
    misrouted: 1,
    other: 1,
  });
  assert.deepEqual(t.otherSamples, ['Sorry, something went wrong.']);
});

test('files: each expected name once is delivered; more copies are duplicates, missing names lost', () => {
  const expected = [fileName(0, 1), fileName(0, 3), fileName(1, 1)];
  const got = [fileName(0, 1), fileName(0, 1), fileName(1, 1), 'unrelated.txt', fileName(0, 1)];
  assert.deepEqual(tallyFiles(expected, got), { expected: 3, delivered: 2, duplicated: 2, lost: 1 });
  assert.equal(per100Kills(3, 12), 25);
  assert.equal(per100Kills(1, 0), 0);
});
