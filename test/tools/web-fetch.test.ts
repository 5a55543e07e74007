// `web_fetch` through the real sandbox and registry against a local HTTP server: HTML becomes
// Markdown or text, redirects are followed by the tool with each hop checked again, caps hold,
// and hosts the policy does not allow are refused.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ToolPolicy } from '../../src/agent/tools/index.ts';
import { policyFor, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
const PAGE = `<!doctype html><html><head><title>Release notes</title><style>body{color:red}</style>
<script>document.write("tracking")</script></head><body>
<h1>Version 2</h1><p>It is <strong>faster</strong> and has <a href="https://example.com/docs">docs</a>.</p>
<ul><li>one</li><li>two</li></ul><pre><code>npm install</code></pre></body></html>`;

describe('web_fetch', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const url = req.url ?? '/';
      if (url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(PAGE);
      } else if (url.startsWith('/hop/')) {
        const n = Number(url.slice(5));
        res.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/page' });
        res.end();
      } else if (url === '/to-localhost') {
        res.writeHead(301, { location: `http://localhost:${(server.address() as AddressInfo).port}/page` });
        res.end();
      } else if (url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      } else if (url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(50_000));
      } else if (url === '/latin1') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      } else if (url === '/image') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not here');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await h.close();
    server.close();
  });

  const ws = workspace();
  /** The local server allowed; the private-network block lifted for this test only. */
  const allowed = (): ToolPolicy => policyFor(ws, { network: { allow: ['http://127.0.0.1:*'], block: [] } });
  const fetchWith = (input: Record<string, unknown>, policy = allowed()) => h.call('web_fetch', input, policy);

  it('fetches an allowed host and converts HTML to Markdown', async () => {
    const r = await fetchWith({ url: `${base}/page` });
    assert.equal(r.isError, false, r.content);
    assert.equal(
      r.content,
      'Title: Release notes\n\n# Version 2\n\nIt is **faster** and has [docs](https://example.com/docs).\n\n-   ' +
        'one\n-   two\n\n```\nnpm install\n```',
    );
    assert.equal(r.metadata.status, 200);
    assert.equal(r.metadata.title, 'Release notes');
    assert.match(String(r.metadata.contentType), /text\/html/);
  });

  it('returns plain text on request, without scripts or styles', async () => {
    const r = await fetchWith({ url: `${base}/page`, format: 'text' });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /Version 2\nIt is faster and has docs\./);
    assert.doesNotMatch(r.content, /tracking|color:red|\*\*/);
  });

  it('returns JSON and decodes a declared Latin-1 charset', async () => {
    assert.equal((await fetchWith({ url: `${base}/json` })).content, '{"ok":true}');
    assert.equal((await fetchWith({ url: `${base}/latin1` })).content, 'café');
  });

  it('follows redirects itself, up to the cap', async () => {
    const r = await fetchWith({ url: `${base}/hop/2` });
    assert.equal(r.isError, false, r.content);
    assert.equal(r.metadata.finalUrl, `${base}/page`);
    assert.equal(r.metadata.redirects, 3);
    const capped = await fetchWith({ url: `${base}/hop/5`, max_redirects: 2 });
    assert.equal(capped.isError, true);
    assert.match(capped.content, /too many redirects: stopped after 2/);
  });

  it('checks every redirect hop against the allowed hosts', async () => {
    hits.length = 0;
    const r = await fetchWith({ url: `${base}/to-localhost` });
    assert.equal(r.isError, true);
    assert.match(r.content, /localhost.*not allowed|not allowed.*localhost|HTTP-request-denied/s);
    assert.deepEqual(hits, ['/to-localhost'], 'the second hop never reached the server');
  });

  it('refuses a host the policy does not allow, without contacting it', async () => {
    hits.length = 0;
    const r = await fetchWith(
      { url: `${base}/page` },
      policyFor(ws, { network: { allow: ['https://example.com'], block: [] } }),
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /not allowed.*HTTP-request-denied/);
    const none = await fetchWith({ url: `${base}/page` }, policyFor(ws));
    assert.equal(none.isError, true);
    assert.match(none.content, /HTTP-request-denied/);
    assert.deepEqual(hits, []);
  });

  it('refuses a private address when private networks are blocked, even if the host is allowed', async () => {
    const r = await fetchWith(
      { url: `${base}/page` },
      policyFor(ws, { network: { allow: ['http://127.0.0.1:*'], block: ['private'] } }),
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /blocked network.*destination-IP-prohibited/);
  });

  it('pages long content and caps the body in bytes', async () => {
    const first = await fetchWith({ url: `${base}/big`, limit: 1000 });
    assert.equal(first.isError, false);
    assert.equal(first.content.split('\n')[0], 'x'.repeat(1000));
    assert.match(first.content, /--offset 1000/);
    assert.deepEqual([first.metadata.shownFrom, first.metadata.shownTo, first.metadata.totalChars], [0, 1000, 50_000]);
    const capped = await fetchWith({ url: `${base}/big`, max_bytes: 100 });
    assert.equal(capped.metadata.bodyTruncated, true);
    assert.equal(capped.metadata.bytes, 100);
    assert.match(capped.content, /cut at 100 bytes/);
  });

  it('refuses binary content and reports HTTP errors with the body', async () => {
    const img = await fetchWith({ url: `${base}/image` });
    assert.equal(img.isError, true);
    assert.match(img.content, /binary content \(image\/png/);
    const missing = await fetchWith({ url: `${base}/nope` });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /^HTTP 404 .*\n\nnot here$/);
  });

  it('refuses URLs that are not http(s)', async () => {
    const r = await fetchWith({ url: 'file:///etc/passwd' });
    assert.equal(r.isError, true);
    assert.match(r.content, /only http and https/);
  });
});
