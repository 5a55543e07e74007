// The model stream's watchdog: silence is data not arriving, not the event loop being too busy to read it. Node runs
// due timers before it reads sockets, so after a blocked loop the timer must not decide before the data that came
// meanwhile has been read.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { startIdleTimer } from '../../../src/agent/providers/idle-timer.ts';

/** Busy-waits `ms` of wall time: the event loop is blocked throughout (a large import, a long GC). */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

test('data that arrived while the event loop was blocked past the timeout counts: no stall', async (t) => {
  let serverSide!: Socket;
  const server = createServer((s) => {
    serverSide = s;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  while (!serverSide) await new Promise((r) => setImmediate(r));
  t.after(() => {
    client.destroy();
    serverSide.destroy();
    server.close();
  });

  let stalled = false;
  const idle = startIdleTimer(50, () => {
    stalled = true;
  });
  let got = '';
  client.on('data', (d: Buffer) => {
    got += d.toString('utf8');
    idle.touch();
  });
  // The chunk reaches the kernel before the block; the timer is due long before the block ends.
  serverSide.write('chunk');
  block(300);
  await new Promise((r) => setTimeout(r, 20));
  idle.stop();
  assert.equal(got, 'chunk');
  assert.equal(stalled, false, 'the chunk read after the block restarted the quiet period');
});

test('a stream that really sends nothing is still ended once the timeout has passed', async () => {
  let stalled = false;
  startIdleTimer(30, () => {
    stalled = true;
  });
  await new Promise((r) => setTimeout(r, 60));
  for (let i = 0; i < 100 && !stalled; i++) await new Promise((r) => setImmediate(r));
  assert.equal(stalled, true);
});
