// The soak, reduced to fit the suite (`npm run soak` is the full one): 4 conversations x 5
// messages through the Telegram, Slack and Discord emulators (one answer in each with a file),
// the gateway SIGKILLed twice and restarted on the same data, one short 429 storm; users must
// see every answer once and in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSoak } from '../soak/run.ts';

test('soak: two kills and a 429 storm under load lose, duplicate and reorder nothing', async () => {
  const lines: string[] = [];
  const r = await runSoak({
    seed: 20261124,
    conversations: 4,
    messages: 5,
    loadMs: 10_000,
    kills: 2,
    storms: 1,
    stormMs: 2000,
    diskFull: false,
    diskMs: 0,
    quietMs: 8000,
    deadlineMs: 150_000,
    say: (l) => lines.push(l),
  });
  const figures = { lost: r.lost, duplicated: r.duplicated, reordered: r.reordered, misrouted: r.misrouted };
  const why = `seed ${r.seed}: ${JSON.stringify({ ...r, perConversation: undefined })}\n${lines.join('\n')}`;
  assert.ok(r.quiescent, `the platforms never went quiet; ${why}`);
  assert.equal(r.sent, 20);
  assert.deepEqual(figures, { lost: 0, duplicated: 0, reordered: 0, misrouted: 0 }, why);
});
