// Shared pieces of the loop tests: built-in test tools, policies, an empty registry, and a
// sandbox that fails the test if anything reaches it.

import type { AgentDeps } from '../../../src/agent/index.ts';
import type { WasmToolSource } from '../../../src/agent/loop/tool-set.ts';
import type { BuiltinTool } from '../../../src/agent/tools/builtin.ts';
import type { AccessMode, PermissionLevel, ToolPolicy } from '../../../src/agent/tools/grants.ts';
import type { Provider } from '../../../src/agent/types.ts';
import { DEFAULT_LIMITS, type Sandbox } from '../../../src/sandbox/index.ts';

/** A policy for `access` with an unused workspace. */
export const policy = (access: AccessMode = 'full', tools?: ToolPolicy['tools']): ToolPolicy => ({
  access,
  ...(tools ? { tools } : {}),
  workspace: '/nonexistent-workspace',
  network: { allow: [], block: ['private'] },
  limits: DEFAULT_LIMITS,
});

/** No WASM tools at all. */
export const noWasm: WasmToolSource = { list: () => [], get: () => undefined };

/** A sandbox nothing may reach in these tests. */
export const noSandbox = {
  run: () => Promise.reject(new Error('the sandbox must not be reached in this test')),
} as unknown as Sandbox;

/** A built-in test tool taking `{text}`; `run` defaults to echoing it. */
export function builtin(
  name: string,
  level: PermissionLevel,
  run?: BuiltinTool['run'],
): BuiltinTool & { calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  return {
    name,
    description: `${name} test tool`,
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, file_path: { type: 'string' } },
      additionalProperties: false,
    },
    permissionLevel: level,
    calls,
    async run(input, ctx) {
      calls.push(input);
      if (run) return run(input, ctx);
      return { content: `${name}: ${String(input.text ?? input.file_path ?? '')}`, isError: false };
    },
  };
}

/** The runner's deps over `provider` (model `test/m`, free), no WASM tools, no sandbox; `more` overrides. */
export const scriptedDeps = (provider: Provider, more: Partial<AgentDeps> = {}): AgentDeps => ({
  resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
  registry: noWasm,
  sandbox: noSandbox,
  costOf: () => 0,
  ...more,
});
