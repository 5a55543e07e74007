// Three replica processes on a real PostgreSQL: the leader is SIGKILLed twice (no clean stop, its
// lease simply stops being renewed) and each time another process takes over, with a higher fence,
// and never two leading at once. The takeover time is printed (by construction at most the lease's
// 6 s plus one 2 s renewal round).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compiledChild } from '../compiled-src.ts';
import { waitUntil } from '../helpers.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

interface Replica {
  child: ChildProcess;
  lines: string[];
  alive: boolean;
}

/** The replica's module, compiled with src/ (test/compiled-src.ts): each start skips registering tsx. */
const LEADER_CHILD = compiledChild(fileURLToPath(new URL('leader-child.ts', import.meta.url)));

function replica(url: string): Replica {
  const child = spawn(process.execPath, [LEADER_CHILD, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const r: Replica = { child, lines: [], alive: true };
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    r.lines.push(...parts);
  });
  child.on('exit', () => (r.alive = false));
  return r;
}

const leading = (r: Replica): boolean => {
  const last = r.lines.filter((l) => l.startsWith('lead') || l === 'follow').at(-1);
  return r.alive && !!last?.startsWith('lead');
};

test('the leader is SIGKILLed twice; another replica takes over each time', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const replicas = [replica(url), replica(url), replica(url)];
  try {
    await waitUntil(() => replicas.every((r) => r.lines.includes('ready')), 'three replicas up', 60_000);
    const fences: number[] = [];
    for (let round = 0; round < 3; round++) {
      await waitUntil(() => replicas.some(leading), `a leader (round ${round})`, 30_000);
      const leaders = replicas.filter(leading);
      assert.equal(leaders.length, 1, 'one leader at a time');
      const leader = leaders[0]!;
      fences.push(
        Number(
          leader.lines
            .filter((l) => l.startsWith('lead'))
            .at(-1)!
            .split(' ')[1],
        ),
      );
      if (round === 2) break;
      const killedAt = Date.now();
      leader.child.kill('SIGKILL');
      await waitUntil(() => !leader.alive, 'the leader is dead', 10_000);
      await waitUntil(() => replicas.some(leading), 'a new leader', 30_000);
      console.log(`# takeover after SIGKILL: ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    }
    assert.deepEqual(
      fences,
      [...fences].sort((a, b) => a - b),
      'fences grow',
    );
    assert.equal(new Set(fences).size, 3, 'each new leader has a new fence');
  } finally {
    for (const r of replicas) r.child.kill('SIGKILL');
  }
});
