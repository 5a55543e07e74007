// The agent's runtime built from config and secrets: one sandbox, the hot-reloading tool
// registry (bundled + extensions), the skill catalog and model resolution. Built once per
// process by the gateway, `boxbot ask`/`chat`, and each scheduled job's worker.
// Example: const rt = await createAgentRuntime({ loaded, secrets }); await runAgent({ ..., deps: rt.deps }); await
// rt.close();
import { chmodSync, existsSync, type FSWatcher, mkdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { Secrets } from '../config/env.ts';
import type { LoadedConfig } from '../config/load.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox, type SandboxLimits } from '../sandbox/index.ts';
import { recoverPatchJournals } from './managed/patch-journal.ts';
import { contextWindowOf, costOf, missingProviderHint, resolveModelWithFallback } from './providers/index.ts';
import type { AgentDeps } from './run-agent.ts';
import { createSkillCatalog, type SkillCatalog, skillDirs } from './skills/index.ts';
import { toolCacheDir, toolDirs } from './tools/locations.ts';
import { createToolRegistry, type ToolRegistry } from './tools/registry.ts';
import { webSearchGrant } from './tools/web-search-grant.ts';

/** What a runtime holds. */
export interface AgentRuntime {
  deps: AgentDeps;
  sandbox: Sandbox;
  registry: ToolRegistry;
  skills: SkillCatalog;
  /** Sandbox limits and networks from the config. */
  limits: SandboxLimits;
  block: string[];
  /** Set when no model provider is usable (the one-line hint to show instead of running). */
  unavailableHint: string | undefined;
  close(): Promise<void>;
}

/** Options of createAgentRuntime. */
export interface AgentRuntimeOptions {
  loaded: LoadedConfig;
  secrets: Secrets;
  log?: Logger;
  /** Watch tool and skill folders for changes (default true; one-shot commands pass false). */
  watch?: boolean;
  /** Sandbox worker threads (default from config, else the number of cores). */
  workers?: number;
  /** Test hook: a fetch for the provider SDKs. */
  fetch?: typeof fetch;
  /** Test hook: the sandbox worker's module (default: the one beside this code). */
  workerFile?: string;
}

const MiB = 1024 * 1024;

/** Sandbox limits from config (MiB → bytes), with the defaults. */
export function limitsOf(loaded: LoadedConfig): SandboxLimits {
  const l = loaded.config.sandbox.limits;
  return {
    timeoutMs: l.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
    maxMemoryBytes: l.maxMemoryMb ? Math.round(l.maxMemoryMb * 1024 * 1024) : DEFAULT_LIMITS.maxMemoryBytes,
    maxOutputBytes: l.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
    maxWriteBytes: l.maxWriteMb ? Math.round(l.maxWriteMb * MiB) : DEFAULT_LIMITS.maxWriteBytes!,
    maxDiskBytes: l.maxWorkspaceMb ? Math.round(l.maxWorkspaceMb * MiB) : DEFAULT_LIMITS.maxDiskBytes!,
    maxEntries: l.maxWorkspaceEntries ?? DEFAULT_LIMITS.maxEntries!,
    maxResponseBytes: l.maxResponseMb ? Math.round(l.maxResponseMb * MiB) : DEFAULT_LIMITS.maxResponseBytes!,
    ...((l.fuel ?? DEFAULT_LIMITS.fuel) ? { fuel: l.fuel ?? DEFAULT_LIMITS.fuel } : {}),
  };
}

/** Builds the runtime; tools and skills are loaded before it resolves. */
export async function createAgentRuntime(o: AgentRuntimeOptions): Promise<AgentRuntime> {
  const log = o.log ?? silentLogger;
  const { config } = o.loaded;
  const dataDir = o.loaded.dataDir;
  const workers = o.workers ?? config.sandbox.workers;
  makePrivate(dataDir);
  // A patch a crash cut short is finished (or, before its commit point, undone) before any run sees the workspace.
  const recovered = await recoverPatchJournals(join(dataDir, 'workspaces'));
  if (recovered.rolledForward.length || recovered.rolledBack.length || recovered.failed.length)
    log.warn(recovered, 'patches a crash interrupted were finished or undone');
  const sandbox = createSandbox({
    cacheDir: join(dataDir, 'cache', 'sandbox'),
    // Tools must never reach what the host loads or trusts later (README, "boxbot's own files are never mounted").
    protect: {
      dirs: [dataDir],
      noWrite: o.loaded.file ? [o.loaded.file] : [],
      mountableInside: [join(dataDir, 'workspaces')],
    },
    log: log.child({ scope: 'sandbox' }),
    ...(workers ? { workers } : {}),
    ...(o.workerFile ? { workerFile: o.workerFile } : {}),
    ...(config.sandbox.workerHeapMb ? { workerHeapMb: config.sandbox.workerHeapMb } : {}),
  });
  const registry = createToolRegistry({
    sandbox,
    dirs: toolDirs(dataDir),
    cacheDir: toolCacheDir(dataDir),
    log: log.child({ scope: 'tools' }),
    watch: o.watch ?? true,
  });
  await registry.start();
  const skills = createSkillCatalog(skillDirs(dataDir), log.child({ scope: 'skills' }));
  await skills.reload();
  const stopWatchingSkills =
    o.watch === false
      ? () => undefined
      : watchSkills(
          skillDirs(dataDir).map((d) => d.path),
          () => void skills.reload(),
          log,
        );
  const ctx = {
    config,
    secrets: o.secrets,
    logger: log.child({ scope: 'provider' }),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const deps: AgentDeps = {
    resolveModel: (spec) => resolveModelWithFallback(spec, ctx),
    registry,
    sandbox,
    skills,
    costOf,
    contextWindowOf,
    logger: log.child({ scope: 'agent' }),
    ...(o.loaded.config.agents ? { agents: o.loaded.config.agents } : {}),
  };
  const search = webSearchGrant(config.webSearch, o.secrets, config.sandbox.network.block);
  if (search) deps.hostGrants = { web_search: search };
  return {
    deps,
    sandbox,
    registry,
    skills,
    limits: limitsOf(o.loaded),
    block: config.sandbox.network.block,
    unavailableHint: missingProviderHint({ config, secrets: o.secrets }),
    async close() {
      await registry.close();
      stopWatchingSkills();
      await sandbox.close();
    },
  };
}

/** Creates the data dir 0700, or tightens one made earlier with a wider mode: only boxbot's user reads it. */
function makePrivate(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch {
    // Not ours to change (another owner): what it holds is still protected from tools by the grant check.
  }
}

/** Reloads skills shortly after anything changes under their folders; returns the stop function. */
function watchSkills(dirs: string[], reload: () => void, log: Logger): () => void {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    try {
      const w = watch(dir, { recursive: true }, () => {
        clearTimeout(timer);
        timer = setTimeout(reload, 200);
      });
      w.on('error', (e) => log.warn({ dir, err: e.message }, 'skill folder watch failed'));
      watchers.push(w);
    } catch (e) {
      log.warn({ dir, err: errorMessage(e) }, 'cannot watch the skill folder; new skills need a restart');
    }
  }
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
