// Shared by the registry tests: tool files made from the built test guests, registry events
// awaited instead of timed, and a permissive policy for calls.
import { copyFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryEvent, ToolPolicy, ToolRegistry } from '../../../src/agent/tools/index.ts';
import { DEFAULT_LIMITS } from '../../../src/sandbox/index.ts';
import { guest, tempDir } from '../../helpers.ts';

/** Copies the built guest `guestName` into `dir` as `<toolName>.wasm`, atomically (temp + rename). */
export function dropTool(dir: string, guestName: string, toolName: string): string {
  const path = join(dir, `${toolName}.wasm`);
  const tmp = join(dir, `.${toolName}.${process.pid}.tmp`);
  copyFileSync(guest(guestName), tmp);
  renameSync(tmp, path);
  return path;
}

/** Resolves with the first registry event matching `pred` (register before causing it). */
export function nextEvent(registry: ToolRegistry, pred: (e: RegistryEvent) => boolean): Promise<RegistryEvent> {
  return new Promise((resolve) => {
    const off = registry.onChange((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
}

/** A full-access policy over a fresh workspace, with the loopback network open. */
export function openPolicy(over: Partial<ToolPolicy> = {}): ToolPolicy {
  return {
    access: 'full',
    workspace: tempDir('boxbot-ws-'),
    network: { allow: ['http://127.0.0.1:*'], block: [] },
    limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000 },
    ...over,
  };
}
