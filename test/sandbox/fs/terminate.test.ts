// The pool enforces timeouts by terminating the worker, so a killed call never reaches
// closeAll(). Node closes the fds a worker opened with fs.open* when the worker goes away; the
// filesystem host relies on that (it opens every fd that way), and this test guards it.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openFds, temp } from './harness.ts';

const script = new URL('./hung-worker.ts', import.meta.url);
// Node 20 workers do not inherit tsx's hooks (as in src/sandbox/pool.ts).
const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(script.href)}); })`;

describe('filesystem host: a worker killed mid-call', { timeout: 60_000 }, () => {
  it('leaves none of the call’s fds open in the process', async () => {
    const ws = temp('boxbot-fs-kill-');
    mkdirSync(join(ws, 'd'));
    writeFileSync(join(ws, 'f.txt'), 'x');
    const before = openFds();
    const worker = new Worker(bootstrap, { eval: true, workerData: { ws, count: 300 } });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    const holding = openFds();
    await worker.terminate();
    assert.ok(holding >= before + 300, `the call held its descriptors (${before} → ${holding})`);
    assert.ok(openFds() <= before, `fds left after terminate: ${openFds() - before}`);
  });
});
