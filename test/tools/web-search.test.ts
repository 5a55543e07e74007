// `web_search` through the real sandbox and tool set against an emulator of each service
// (SearXNG, Brave Search, Tavily): the configured service and key reach only that tool's sandbox,
// the call reaches only that service's host, and its results count as untrusted for approvals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createToolSet } from '../../src/agent/loop/tool-set.ts';
import type { ApprovalQuestion, ApprovalRules, RegisteredTool, WebSearchConfig } from '../../src/agent/tools/index.ts';
import { createApprovalGate, webSearchGrant } from '../../src/agent/tools/index.ts';
import { type SearchEmulator, startSearchEmulator } from '../emulators/search/server.ts';
import { policyFor, toolHarness, workspace } from './helpers.ts';

const KEY = 'sk-search-0123456789abcdef';
const HITS = [
  {
    title: 'Node.js 20 release notes',
    url: 'https://nodejs.org/en/blog/release/v20.0.0',
    snippet: 'Node.js 20 is out',
  },
  { title: 'WASI preview 2', url: 'https://wasi.dev/', snippet: 'The WebAssembly System Interface' },
  { title: 'Third', url: 'https://example.com/3', snippet: 'three' },
];

const h = toolHarness();
let emu: SearchEmulator;
let tool: RegisteredTool;
before(async () => {
  emu = await startSearchEmulator(HITS, KEY);
  tool = await h.tool('web_search');
});
after(async () => {
  await h.close();
  await emu.close();
});

/** A tool set holding the bundled web_search, granted the search service `config` names. */
function searchSet(
  config: WebSearchConfig | undefined,
  secrets: Record<string, string> = { BRAVE_API_KEY: KEY },
  rules: ApprovalRules = { afterUntrusted: true },
) {
  const asked: ApprovalQuestion[] = [];
  const gate = createApprovalGate(rules, async (q) => {
    asked.push(q);
    return { approved: true };
  });
  const grant = config ? webSearchGrant(config, secrets, ['private']) : undefined;
  const set = createToolSet({
    wasm: { list: () => [tool], get: (n) => (n === 'web_search' ? tool : undefined) },
    builtins: [],
    // The conversation allows no host at all: the search service is the host's own grant.
    policy: { ...policyFor(workspace(), { access: 'read-only' }), approvals: rules },
    sandbox: h.sandbox,
    ...(grant ? { hostGrants: { web_search: grant } } : {}),
    gate,
  });
  return { set, asked, gate };
}

const call = (set: ReturnType<typeof searchSet>['set'], input: unknown) =>
  set.call({ id: '1', name: 'web_search', input }, new AbortController().signal);

describe('web_search', () => {
  it('describes itself as a ReadOnly network tool and shows the model no key', async () => {
    assert.equal(tool.spec.permissionLevel, 'ReadOnly');
    assert.deepEqual(tool.spec.network, ['*']);
    const { set } = searchSet({ provider: 'brave', baseUrl: emu.url });
    const defs = JSON.stringify(set.definitions());
    assert.match(defs, /"query"/);
    assert.doesNotMatch(defs, new RegExp(KEY));
    assert.doesNotMatch(defs, /127\.0\.0\.1/);
  });

  it('asks SearXNG for JSON and lists its results', async () => {
    const { set } = searchSet({ provider: 'searxng', baseUrl: emu.url });
    const before = emu.requests.length;
    const r = await call(set, { query: 'node 20 release', count: 2 });
    assert.equal(r.isError, false, r.content);
    assert.equal(
      r.content,
      '1. Node.js 20 release notes\n   https://nodejs.org/en/blog/release/v20.0.0\n   Node.js 20 is out\n\n' +
        '2. WASI preview 2\n   https://wasi.dev/\n   The WebAssembly System Interface',
    );
    const req = emu.requests[before]!;
    assert.deepEqual([req.method, req.path, req.query], ['GET', '/search', { q: 'node 20 release', format: 'json' }]);
    assert.equal(req.headers['x-subscription-token'], undefined);
    assert.equal(req.headers.authorization, undefined);
    assert.equal(r.source?.network, true);
    assert.match(r.source?.untrusted ?? '', /web_search\(query="node 20 release"/);
  });

  it('sends Brave its key in X-Subscription-Token, and the count', async () => {
    const { set } = searchSet({ provider: 'brave', baseUrl: emu.url });
    const before = emu.requests.length;
    const r = await call(set, { query: 'wasi' });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /^1\. Node\.js 20 release notes[\s\S]*3\. Third\n {3}https:\/\/example\.com\/3/);
    const req = emu.requests[before]!;
    assert.deepEqual([req.method, req.path, req.query], ['GET', '/res/v1/web/search', { q: 'wasi', count: '5' }]);
    assert.equal(req.headers['x-subscription-token'], KEY);
  });

  it('POSTs Tavily a JSON body with a bearer key', async () => {
    const { set } = searchSet({ provider: 'tavily', baseUrl: emu.url }, { TAVILY_API_KEY: KEY });
    const before = emu.requests.length;
    const r = await call(set, { query: 'tavily test', count: 1 });
    assert.equal(r.isError, false, r.content);
    assert.equal(
      r.content,
      '1. Node.js 20 release notes\n   https://nodejs.org/en/blog/release/v20.0.0\n   Node.js 20 is out',
    );
    const req = emu.requests[before]!;
    assert.deepEqual([req.method, req.path], ['POST', '/search']);
    assert.deepEqual(JSON.parse(req.body), { query: 'tavily test', max_results: 1 });
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  });

  it('says so when the service refuses the key, and never shows the key', async () => {
    const { set } = searchSet({ provider: 'brave', baseUrl: emu.url }, { BRAVE_API_KEY: 'wrong-key-000000' });
    const r = await call(set, { query: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /brave search service refused the key \(HTTP 401\)/);
    assert.doesNotMatch(r.content, /wrong-key/);
  });

  it('names the missing key variable instead of calling without one', async () => {
    const { set } = searchSet({ provider: 'tavily', baseUrl: emu.url }, {});
    const before = emu.requests.length;
    const r = await call(set, { query: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /tavily search key is not set/);
    assert.equal(emu.requests.length, before);
  });

  it("is granted its service's origin only; a named host keeps the private-network block", async () => {
    const local = webSearchGrant({ provider: 'searxng', baseUrl: `${emu.url}/searx` }, {}, ['private'])!;
    assert.deepEqual(local.hosts, [emu.url]);
    assert.deepEqual(local.block, []);
    const named = webSearchGrant({ provider: 'searxng', baseUrl: 'https://search.example.org' }, {}, ['private'])!;
    assert.deepEqual(named.hosts, ['https://search.example.org:443']);
    assert.deepEqual(named.block, ['private']);
  });

  it('with no service configured, is not offered, and a call to it is refused as unknown', async () => {
    const { set } = searchSet(undefined);
    assert.deepEqual(set.permittedNames(), []);
    assert.deepEqual(set.definitions(), []);
    const before = emu.requests.length;
    const r = await call(set, { query: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /there is no tool named "web_search"/);
    assert.equal(emu.requests.length, before, 'nothing was asked');
  });

  it('an extension that takes over the name stays offered without a service (it gets no grant)', () => {
    const ext: RegisteredTool = { ...tool, source: 'extension' };
    const set = createToolSet({
      wasm: { list: () => [ext], get: (n) => (n === 'web_search' ? ext : undefined) },
      builtins: [],
      policy: policyFor(workspace(), { access: 'read-only' }),
      sandbox: h.sandbox,
    });
    assert.deepEqual(set.permittedNames(), ['web_search']);
  });

  it('the bundled tool itself still says what to set if it runs without its variables', async () => {
    // A host grant naming no service (the tool set never builds one, but the component must not call out blindly).
    const set = createToolSet({
      wasm: { list: () => [tool], get: (n) => (n === 'web_search' ? tool : undefined) },
      builtins: [],
      policy: policyFor(workspace(), { access: 'read-only' }),
      sandbox: h.sandbox,
      hostGrants: { web_search: { hosts: [], block: ['private'], env: {} } },
    });
    const r = await call(set, { query: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /web search is not configured on this gateway \(set webSearch\.provider/);
  });

  it('taints the run: its results count as untrusted for approvals.afterUntrusted', async () => {
    const { set, gate } = searchSet({ provider: 'searxng', baseUrl: emu.url });
    assert.deepEqual(gate.untrusted, []);
    await call(set, { query: 'first' });
    assert.deepEqual(gate.untrusted, ['the result of web_search(query="first")']);
  });

  it('asks approvers about the one host it is granted, when the policy guards it', async () => {
    const { set, asked } = searchSet({ provider: 'searxng', baseUrl: emu.url }, {}, { tools: ['web_search'] });
    const r = await call(set, { query: 'guarded' });
    assert.equal(r.isError, false, r.content);
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0]!.hosts, [emu.url]);
    assert.deepEqual(asked[0]!.folders, [{ path: asked[0]!.folders[0]!.path, readOnly: true }]);
  });
});
