// Disk limits from a real guest (test/guests/fs-probe.js `fill`): a call may write only so
// many bytes, a workspace may grow only so large across calls; past either the guest gets
// ENOSPC (`insufficient-space`) and the result's trap names the limit.
import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, type SandboxLimits } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, tempDir, text } from '../helpers.ts';

const MiB = 1024 * 1024;

describe('sandbox: disk limits', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
  });
  after(() => sandbox.close());

  async function fill(ws: string, file: string, mib: number, limits: Partial<SandboxLimits>) {
    const g = grant({ args: ['fill', file, String(mib)], mounts: [{ host: ws, guest: '/', readOnly: false }] });
    g.limits = { ...g.limits, ...limits };
    const r = await sandbox.run(guest('fs-probe'), g);
    return { r, out: JSON.parse(text(r.stdout)) as { ok: boolean; value?: string; error?: string } };
  }

  it('a call writing past its write limit gets ENOSPC, and the result has trap "disk"', async () => {
    const ws = tempDir('boxbot-ws-');
    const { r, out } = await fill(ws, 'big.bin', 10, { maxWriteBytes: 4 * MiB });
    assert.deepEqual(out, { ok: false, error: 'insufficient-space after 4 MiB' });
    assert.equal(r.trap?.kind, 'disk');
    assert.match(r.trap!.message, /per-call write limit/);
    assert.equal(statSync(join(ws, 'big.bin')).size, 4 * MiB);
  });

  it('the workspace quota holds across calls', async () => {
    const ws = tempDir('boxbot-ws-');
    const limits = { maxWriteBytes: 64 * MiB, maxDiskBytes: 6 * MiB };
    const first = await fill(ws, 'a.bin', 4, limits);
    assert.deepEqual(first.out, { ok: true, value: '4 MiB' });
    assert.equal(first.r.trap, undefined, 'a call within both limits has no trap');
    const second = await fill(ws, 'b.bin', 4, limits);
    assert.equal(second.out.ok, false);
    assert.match(second.out.error!, /^insufficient-space after [0-2] MiB$/);
    assert.equal(second.r.trap?.kind, 'disk');
    assert.match(second.r.trap!.message, /quota of 6291456 bytes/);
    assert.ok(statSync(join(ws, 'a.bin')).size + statSync(join(ws, 'b.bin')).size <= 6 * MiB);
  });

  it("the workspace entry limit comes from the call's limits (sandbox.limits.maxWorkspaceEntries)", async () => {
    const ws = tempDir('boxbot-ws-');
    for (let i = 0; i < 3; i++) writeFileSync(join(ws, `f${i}`), '');
    const { r, out } = await fill(ws, 'one-more.bin', 1, { maxEntries: 3 });
    assert.equal(out.ok, false);
    assert.equal(r.trap?.kind, 'disk');
    assert.match(r.trap!.message, /more than 3 files, directories and links/);
    assert.equal(existsSync(join(ws, 'one-more.bin')), false);
  });
});
