// A whole gateway for tests that go through it: a fake platform with buttons, the real agent
// runner and memory store, and a scripted model whose queue outlives a restart (boot again on the
// same state and adapter).

import type { AgentDeps, ModelRequest, Provider, StreamPart } from '../../src/agent/index.ts';
import type { BuiltinTool } from '../../src/agent/tools/builtin.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import type { ChatCommand } from '../../src/runner/chat-command.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore, type Store } from '../../src/store/index.ts';
import type { MemoryFilesState } from '../../src/store/memory-files.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { tempDir } from '../helpers.ts';
import { FakeAdapter, fakeCapabilities } from './fakes.ts';

/** A model that answers from a queue shared across restarts and records what each call was shown. */
export class Model {
  readonly steps: StreamPart[][] = [];
  readonly requests: ModelRequest[] = [];
  provider(): Provider {
    return {
      name: 'test',
      stream: (req) => {
        this.requests.push(structuredClone(req));
        const step = this.steps.shift();
        if (!step) throw new Error(`model call ${this.requests.length} was not scripted`);
        return (async function* () {
          yield* step;
        })();
      },
    };
  }
  script(...steps: StreamPart[][]): void {
    this.steps.push(...steps);
  }
}

/** A built-in tool that counts its runs. */
export function tool(name: string, level: BuiltinTool['permissionLevel'], untrusted?: string) {
  const runs: unknown[] = [];
  const t: BuiltinTool = {
    name,
    description: `${name} test tool`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false },
    permissionLevel: level,
    async run(input) {
      runs.push(input);
      return { content: `${name} done: ${String(input.path)}`, isError: false, ...(untrusted ? { untrusted } : {}) };
    },
  };
  return { t, runs };
}

export interface Boot {
  gw: Gateway;
  adapter: FakeAdapter;
  store: Store;
}

export function boot(o: {
  model: Model;
  state: MemoryFilesState;
  telegram?: Record<string, unknown>;
  tools?: BuiltinTool[];
  costUsd?: number;
  adapter?: FakeAdapter;
  /** A store shared with another boot (replicas on one database). */
  store?: Store;
  chatCommands?: readonly ChatCommand[];
  /** Models from elsewhere (real providers against the LLM emulator) instead of `model`'s script. */
  resolveModel?: AgentDeps['resolveModel'];
  /** Run slots (default: the gateway's). */
  concurrency?: number;
}): Boot {
  const adapter = o.adapter ?? new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  const store = o.store ?? createMemoryStore({ state: o.state });
  const provider = o.model.provider();
  const deps: AgentDeps = {
    resolveModel:
      o.resolveModel ??
      ((spec) => ({ provider, model: (spec ?? 'test/default').split('/')[1]!, id: spec ?? 'test/default' })),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => o.costUsd ?? 0.001,
    builtins: o.tools ?? [],
  };
  const agent = createAgentRunner({
    store,
    deps,
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  const gw = createGateway({
    config: configSchema.parse({ channels: { telegram: { access: 'full', ...o.telegram } } }),
    adapters: [adapter],
    agent,
    store: store.delivery,
    approvals: store.approvals,
    outbound: { backoffMs: 5 },
    ...(o.chatCommands ? { chatCommands: o.chatCommands } : {}),
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
  });
  return { gw, adapter, store };
}

export const lastToolResult = (req: ModelRequest | undefined): string => {
  const part = req?.messages.at(-1)?.content.find((p) => p.type === 'tool-result');
  return part?.type === 'tool-result' ? part.content : '';
};

/** The approval questions posted to `adapter`, and the id a question names. */
export const questions = (adapter: FakeAdapter) => adapter.posted.filter((p) => p.text.startsWith('Approval needed'));
export const idOf = (text: string) => /\(([a-z0-9]+)\)/.exec(text)![1]!;
