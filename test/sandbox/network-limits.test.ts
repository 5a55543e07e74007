// Per-call limits on guest HTTP, from a real guest (test/guests/net-probe.js) against a
// loopback server: at most 8 requests of a call run at once (the rest wait their turn), the
// call's response bodies are capped in all, and nothing stays in flight once the call ends.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, type SandboxGrant } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, text, waitUntil } from '../helpers.ts';

const MiB = 1024 * 1024;
/**
 * How long a wait below may take before it fails: only a hang should reach it. The first one includes compiling
 * the guest and starting its worker, which on a loaded machine took over 20 s.
 */
const WAIT_MS = 120_000;

describe('sandbox: network limits per call', () => {
  let sandbox: Sandbox;
  let server: Server;
  let base: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok');

  before(async () => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await sandbox.close();
    server.closeAllConnections();
    server.close();
  });

  const netGrant = (args: string[], limits: Partial<SandboxGrant['limits']> = {}): SandboxGrant => {
    const g = grant({ args, network: { allow: ['http://127.0.0.1:*'], block: ['none'] } });
    g.limits = { ...g.limits, ...limits };
    return g;
  };
  const lines = (out: Uint8Array) =>
    text(out)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ok: boolean; body?: string; error?: string });

  it('runs at most 8 requests of a call at once; a 9th waits for a turn and then succeeds', async () => {
    const held: ServerResponse[] = [];
    let seen = 0;
    let most = 0;
    handler = (req, res) => {
      seen++;
      held.push(res);
      most = Math.max(most, held.length);
      res.on('close', () => held.splice(held.indexOf(res), 1));
      (res as ServerResponse & { path?: string }).path = req.url;
    };
    const urls = Array.from({ length: 9 }, (_, i) => `${base}/r${i}`);
    const call = sandbox.run(guest('net-probe'), netGrant(['--parallel', ...urls]));
    await waitUntil(() => held.length >= 8, 'eight requests held by the server', WAIT_MS);
    // Answer one: only then may the ninth reach the server.
    held[0]!.end('done');
    await waitUntil(() => seen === 9, 'the ninth request after a slot freed', WAIT_MS);
    for (const res of [...held]) res.end('done');
    const r = await call;
    assert.equal(r.trap, undefined);
    assert.equal(most, 8, 'never more than 8 at once');
    assert.deepEqual(
      lines(r.stdout).map((l) => l.ok),
      Array(9).fill(true),
    );
  });

  it('caps the response bytes of a call in all: bodies past the cap fail with HTTP-response-body-size', async () => {
    handler = (_req, res) => res.end(Buffer.alloc(256 * 1024, 97));
    const r = await sandbox.run(
      guest('net-probe'),
      netGrant([`${base}/a`, `${base}/b`, `${base}/c`], { maxResponseBytes: 600 * 1024, maxOutputBytes: 4 * MiB }),
    );
    const out = lines(r.stdout);
    assert.deepEqual(
      out.map((l) => l.ok),
      [true, true, false],
    );
    assert.equal(out[0]!.body!.length, 256 * 1024);
    assert.equal(out[2]!.error, 'HTTP-response-body-size');
  });

  const requestStillFlightTitle =
    'a request still in flight when the call exits normally is aborted (the server sees the socket close)';
  it(requestStillFlightTitle, async () => {
    let closed = false;
    let arrived = false;
    handler = (req, res) => {
      if (req.url === '/hang') {
        arrived = true;
        req.socket.on('close', () => (closed = true));
        return;
      }
      // The guest exits right after this answer; hold it until /hang is surely in flight.
      void waitUntil(() => arrived, '/hang to arrive', WAIT_MS).then(() => res.end('pong'));
    };
    const r = await sandbox.run(guest('net-probe'), netGrant(['--leave', `${base}/hang`, `${base}/ping`]));
    assert.equal(r.exitCode, 0);
    assert.deepEqual(lines(r.stdout)[0], { ok: true, status: 200, body: 'pong' });
    await waitUntil(() => closed, 'the abandoned request to be aborted', WAIT_MS);
  });

  it('a request in flight when the call times out is aborted', async () => {
    let closed = false;
    let arrived = false;
    handler = (req) => {
      arrived = true;
      req.socket.on('close', () => (closed = true));
    };
    // Time enough for the request to leave the guest on a busy machine before the call times out.
    const r = await sandbox.run(guest('net-probe'), netGrant([`${base}/hang`], { timeoutMs: 4000 }));
    assert.equal(r.trap?.kind, 'timeout');
    assert.ok(arrived);
    await waitUntil(() => closed, 'the timed-out request to be aborted', WAIT_MS);
  });
});
