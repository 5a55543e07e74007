// A gateway with the real runner and memory over a memory store and a scripted model, for tests
// that watch what people see through one or more adapters; and the web chat in front of one, over
// HTTP, with browser tabs that read its event stream.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { ChannelAdapter } from '../../src/adapters/index.ts';
import { createWebAdapter, type WebAdapter } from '../../src/adapters/web/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { memoryCommands } from '../../src/runner/memory-commands.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore, type Store } from '../../src/store/index.ts';
import { serveAdapter } from '../adapters/web-server.ts';
import { scriptedDeps } from '../agent/loop/helpers.ts';
import { type ScriptedModel, type ScriptStep, scriptedModel } from '../agent/loop/scripted.ts';
import { readEventStream, tempDir, waitUntil } from '../helpers.ts';

/** Options of memoryGateway: the raw config (parsed here) and the model's script. */
export interface MemoryGatewayOptions {
  adapters: ChannelAdapter[];
  config?: unknown;
  steps?: ScriptStep[];
  store?: Store;
  /** Approval questions go to the store's approvals (a gateway without them asks nobody). */
  approvals?: boolean;
}

/** The gateway, started, stopped after the test. */
export async function memoryGateway(
  t: TestContext,
  o: MemoryGatewayOptions,
): Promise<{ gw: Gateway; store: Store; provider: ScriptedModel }> {
  const store = o.store ?? createMemoryStore();
  const provider = scriptedModel(t, o.steps ?? [], 'test');
  const deps = scriptedDeps(provider);
  const gw = createGateway({
    config: configSchema.parse(o.config ?? {}),
    adapters: o.adapters,
    agent: createAgentRunner({
      store,
      deps,
      workspacesDir: tempDir(),
      sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
      memory: { digestChars: 2000 },
    }),
    store: store.delivery,
    ...(o.approvals ? { approvals: store.approvals } : {}),
    outbound: { backoffMs: 5 },
    chatCommands: memoryCommands(store.memories),
  });
  await gw.start();
  t.after(() => gw.stop());
  return { gw, store, provider };
}

/** One event the web chat's stream showed. */
export interface Shown {
  type: string;
  id?: string;
  text?: string;
  buttons?: { id: string; label: string }[];
}

/** A browser tab: its session, what its stream showed, and its posts. */
export interface WebTab {
  session: string;
  conversationKey: string;
  shown: Shown[];
  /** Posts a message (202 asserted); the answer arrives in `shown`. */
  post(text: string): Promise<void>;
  press(messageId: string, button: string): Promise<void>;
}

/** The web chat served over HTTP in front of a memoryGateway; `tab(cookie, owner)` opens a tab of that browser. */
export async function webGateway(
  t: TestContext,
  o: Omit<MemoryGatewayOptions, 'adapters'> & { web?: Parameters<typeof createWebAdapter>[0] },
) {
  const web: WebAdapter = createWebAdapter(o.web ?? {});
  const g = await memoryGateway(t, { ...o, adapters: [web] });
  const server = await serveAdapter(web);
  const streams = new AbortController();
  t.after(async () => {
    streams.abort();
    await server.close();
  });
  /** The browser's cookies as one Cookie header. */
  const cookieOf = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
  /** The page's owner id as the browser with `cookie` sees it. */
  const ownerOf = async (cookie?: string) => {
    const page = await fetch(`${server.url}/`, cookie ? { headers: { cookie } } : {});
    const owner = /"OWNER":"([^"]+)"/.exec(await page.text())![1]!;
    return { owner, cookie: cookie ?? cookieOf(page) };
  };
  const tab = async (cookie: string, owner: string): Promise<WebTab> => {
    const session = `${owner}-tab${Math.random().toString(36).slice(2, 12)}`;
    const shown: Shown[] = [];
    const res = await fetch(`${server.url}/chat/events?session=${session}&token=${encodeURIComponent(web.apiToken)}`, {
      headers: { cookie },
      signal: streams.signal,
    });
    assert.equal(res.status, 200);
    let connected = false;
    readEventStream(
      res.body!,
      (e) => void shown.push(e as Shown),
      (c) => {
        if (c.startsWith('connected')) connected = true;
      },
    );
    await waitUntil(() => connected, 'the event stream', 5000);
    const headers = { 'content-type': 'application/json', 'x-boxbot-token': web.apiToken, cookie };
    let n = 0;
    const send = async (path: string, body: object) => {
      const r = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      assert.equal(r.status, 202);
    };
    return {
      session,
      conversationKey: `web:${session}`,
      shown,
      post: (text) => send('/chat/messages', { session, text, id: `msg-${owner.slice(0, 4)}-${n++}-${Date.now()}` }),
      press: (messageId, button) => send('/chat/press', { session, messageId, button }),
    };
  };
  return { ...g, web, server, cookieOf, ownerOf, tab };
}
