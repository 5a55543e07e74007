// Shared helpers of the bundled-tool tests: where the built tools are, a sandbox, a policy for a
// temporary workspace, and one call of a tool the way the agent makes it (registerFile from the
// tool's own help, grantFor from its level and the policy, invokeTool with JSON input).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  grantFor,
  invokeTool,
  type PermissionLevel,
  type RegisteredTool,
  registerFile,
  type ToolPolicy,
  type ToolResult,
} from '../../src/agent/tools/index.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { root, SHARED_CACHE, tempDir } from '../helpers.ts';

export { tempDir };

/** Every bundled tool name (tools/dist/<name>.wasm). */
export const TOOL_NAMES = [
  'read',
  'glob',
  'grep',
  'ls',
  'write',
  'edit',
  'bash',
  'web_fetch',
  'web_search',
  'js_exec',
] as const;

/** The built tool `name`; fails with what to run when it is missing. */
export function toolFile(name: string): string {
  const path = join(root, 'tools', 'dist', `${name}.wasm`);
  if (!existsSync(path)) {
    throw new Error(
      `bundled tool ${name} is not built (${path} is missing): run npx tsx scripts/build-tools.ts (npm install does ` +
        `this)`,
    );
  }
  return path;
}

/**
 * Limits of test calls: the defaults (so the tests prove the default fuel suffices), with more time for a loaded
 * machine.
 */
export const TEST_LIMITS = { ...DEFAULT_LIMITS, timeoutMs: 60_000 };

/** A policy for `workspace`: full access, no network, test limits; `over` replaces fields. */
export function policyFor(workspace: string, over: Partial<ToolPolicy> = {}): ToolPolicy {
  return { access: 'full', workspace, network: { allow: [], block: ['private'] }, limits: TEST_LIMITS, ...over };
}

/** A sandbox plus the bundled tools registered from their help, for one test file. */
export interface ToolHarness {
  sandbox: Sandbox;
  /** The registered tool (registered on first use). */
  tool(name: string): Promise<RegisteredTool>;
  /** Calls `name` with `input` under `policy`; `level` overrides the tool's declared level for the grant. */
  call(name: string, input: unknown, policy: ToolPolicy, level?: PermissionLevel): Promise<ToolResult>;
  close(): Promise<void>;
}

// Compiled modules and specs are content-addressed, so test files and runs share them.
const compiledCache = join(SHARED_CACHE, 'sandbox');
const registryCache = join(SHARED_CACHE, 'tools');

/** Creates a harness; call `close()` in `after`. */
export function toolHarness(): ToolHarness {
  mkdirSync(compiledCache, { recursive: true });
  const sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: compiledCache, workers: 1 });
  const registered = new Map<string, Promise<RegisteredTool>>();
  const tool = (name: string): Promise<RegisteredTool> => {
    let p = registered.get(name);
    if (!p) {
      p = registerFile(sandbox, toolFile(name), registryCache).then((r) => ({
        spec: r.spec,
        blob: r.blob,
        source: 'bundled' as const,
      }));
      // A failed registration fails the test that asked, and is tried again by the next one.
      p.catch(() => registered.delete(name));
      registered.set(name, p);
    }
    return p;
  };
  return {
    sandbox,
    tool,
    async call(name, input, policy, level) {
      const t = await tool(name);
      return invokeTool(sandbox, t, input, grantFor(level ?? t.spec.permissionLevel, t.spec.network, policy));
    },
    async close() {
      await sandbox.close();
    },
  };
}

/** A fresh workspace directory holding `files` (path → content). */
export function workspace(files: Record<string, string | Uint8Array> = {}): string {
  const dir = tempDir('boxbot-ws-');
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, content);
  }
  return dir;
}
