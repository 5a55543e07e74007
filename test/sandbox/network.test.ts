// Guest networking from a real wasm guest (test/guests/net-probe.js): nothing by default,
// only allowed host patterns, every blocked address form refused (as an HTTP error, not a
// trap), and the address connected to is the one checked (no DNS rebinding).
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, text } from '../helpers.ts';

describe('sandbox: network', () => {
  let server: Server;
  let port: number;
  let sandbox: Sandbox;
  const seen: string[] = [];
  let lookups = 0;
  // A resolver whose answer changes after the first lookup: the classic rebinding attack.
  const resolve = async (host: string) => {
    if (host === 'localhost') return (await lookup(host, { all: true })).map((a) => a.address);
    if (host !== 'rebind.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    lookups++;
    return lookups === 1 ? ['127.0.0.1'] : ['127.0.0.2'];
  };

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.socket.localAddress} ${req.url}`);
      res.end(`hello ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: sharedCompileCache(),
      workers: 2,
      net: { resolve },
    });
  });
  after(async () => {
    await sandbox.close();
    server.close();
  });

  async function fetchAs(
    url: string,
    allow: string[],
    block: string[],
  ): Promise<{ ok: boolean; status?: number; body?: string; error?: string }> {
    const r = await sandbox.run(guest('net-probe'), grant({ args: [url], network: { allow, block } }));
    assert.equal(r.trap, undefined, `a network denial must not trap: ${JSON.stringify(r.trap)}`);
    assert.equal(r.exitCode, 0, text(r.stderr));
    return JSON.parse(text(r.stdout));
  }

  it('has no network without an allowed host', async () => {
    assert.deepEqual(await fetchAs(`http://127.0.0.1:${port}/a`, [], ['none']), {
      ok: false,
      error: 'HTTP-request-denied',
    });
  });

  it('reaches an allowed host when its network is not blocked', async () => {
    assert.deepEqual(await fetchAs(`http://127.0.0.1:${port}/a`, ['http://127.0.0.1:*'], ['none']), {
      ok: true,
      status: 200,
      body: 'hello /a',
    });
  });

  it('refuses hosts outside the allow patterns', async () => {
    const r = await fetchAs(`http://127.0.0.1:${port}/a`, ['https://api.example.com'], ['none']);
    assert.deepEqual(r, { ok: false, error: 'HTTP-request-denied' });
  });

  for (const host of [
    '127.0.0.1',
    'localhost',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '0.0.0.0',
    '169.254.169.254',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '[fd12::1]',
    '[fe80::1]',
    '0x7f.1',
    '2130706433',
  ]) {
    it(`blocks private destination ${host}`, async () => {
      const r = await fetchAs(
        `http://${host}:${port}/secret`,
        ['*://*:*'.replace('*:*', `${host.replace(/^0x7f\.1$|^2130706433$/, '127.0.0.1')}:*`)],
        ['private'],
      );
      assert.equal(r.ok, false);
      assert.match(r.error!, /destination-IP-prohibited|HTTP-request-denied/);
    });
  }

  it('connects to the address it checked, not a second DNS answer (rebinding)', async () => {
    seen.length = 0;
    lookups = 0;
    const r = await fetchAs(`http://rebind.test:${port}/pinned`, ['http://rebind.test:*'], ['127.0.0.2/32']);
    assert.deepEqual(r, { ok: true, status: 200, body: 'hello /pinned' });
    assert.equal(lookups, 1, 'the name must be resolved exactly once');
    assert.deepEqual(seen, ['127.0.0.1 /pinned']);
    // The next call resolves again, gets the blocked answer, and is refused.
    assert.deepEqual(await fetchAs(`http://rebind.test:${port}/again`, ['http://rebind.test:*'], ['127.0.0.2/32']), {
      ok: false,
      error: 'destination-IP-prohibited',
    });
  });

  // Without the abort, the host would hold the connection for the broker's 10-minute limit and
  // this test would hit its own timeout.
  it('a call that times out mid-request aborts the request on the host side', { timeout: 60_000 }, async () => {
    const patient = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: sharedCompileCache(),
      workers: 1,
      net: { timeoutMs: 600_000 },
    });
    after(() => patient.close());
    const closed = new Promise<void>((resolve) => {
      const slow = createServer((req) => req.socket.on('close', () => resolve()));
      slow.listen(0, '127.0.0.1', async () => {
        const slowPort = (slow.address() as AddressInfo).port;
        const g = grant({
          args: [`http://127.0.0.1:${slowPort}/hang`],
          network: { allow: ['http://127.0.0.1:*'], block: ['none'] },
        });
        g.limits.timeoutMs = 1000;
        const r = await patient.run(guest('net-probe'), g);
        assert.equal(r.trap?.kind, 'timeout');
        slow.close();
      });
    });
    await closed;
  });

  it('reports DNS failures as DNS errors', async () => {
    assert.deepEqual(await fetchAs(`http://nowhere.test:${port}/`, ['http://nowhere.test:*'], ['none']), {
      ok: false,
      error: 'DNS-error',
    });
  });
});
