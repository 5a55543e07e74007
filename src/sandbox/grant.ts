// Checks a SandboxGrant before any guest sees it: mounts must be existing directories (their
// real paths are what the guest gets), guest paths absolute and distinct, env and args plain
// strings, network patterns valid, limits positive. A bad grant is the caller's bug, reported
// with the field that is wrong; it never reaches a worker. A mount that would reach boxbot's own
// files (data dir, compile cache, config) is refused too, naming the path (protected-paths.ts).
import { realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { errorMessage } from '../core/errors.ts';
import { SandboxError } from './errors.ts';
import { parseHostPatterns } from './net/host-pattern.ts';
import { parseBlockList } from './net/ip-block.ts';
import { mountConflict, type ProtectedPaths } from './protected-paths.ts';
import type { Mount, SandboxGrant } from './types.ts';

function bad(message: string): never {
  throw new SandboxError('bad-grant', message, '');
}

// Synchronous on purpose: two metadata syscalls cost microseconds, while their async forms
// cost two thread-pool round trips on every call's critical path.
function checkMount(m: Mount, i: number, protect: ProtectedPaths | undefined): Mount {
  if (typeof m.host !== 'string' || m.host === '') bad(`mounts[${i}].host must be a directory path`);
  if (typeof m.guest !== 'string' || !m.guest.startsWith('/'))
    bad(`mounts[${i}].guest must be an absolute guest path, got ${JSON.stringify(m.guest)}`);
  let host: string;
  try {
    host = realpathSync(m.host);
    if (!statSync(host).isDirectory()) bad(`mounts[${i}].host ${m.host} is not a directory`);
  } catch (e) {
    if (e instanceof SandboxError) throw e;
    bad(`mounts[${i}].host ${m.host} does not exist`);
  }
  const guest = posix.normalize(m.guest).replace(/(.)\/+$/, '$1');
  const readOnly = m.readOnly !== false;
  const conflict = protect && mountConflict(host, readOnly, protect);
  if (conflict) bad(`mounts[${i}].host ${host} ${conflict}; give tools another folder`);
  return { host, guest, readOnly };
}

/** Returns the grant with mounts resolved to real paths; throws SandboxError('bad-grant'). */
export async function validateGrant(grant: SandboxGrant, protect?: ProtectedPaths): Promise<SandboxGrant> {
  if (!Array.isArray(grant.args) || grant.args.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    bad('args must be strings without NUL bytes');
  }
  const env = grant.env ?? {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v !== 'string' || k === '' || k.includes('=') || k.includes('\0') || v.includes('\0')) {
      bad(`env ${JSON.stringify(k)} must be NAME=string without '=' in the name or NUL bytes`);
    }
  }
  const mounts = (grant.mounts ?? []).map((m, i) => checkMount(m, i, protect));
  const guests = new Set<string>();
  for (const m of mounts) {
    if (guests.has(m.guest)) bad(`two mounts at guest path ${m.guest}`);
    guests.add(m.guest);
  }
  const network = { allow: grant.network?.allow ?? [], block: grant.network?.block ?? ['private'] };
  try {
    parseHostPatterns(network.allow);
    parseBlockList(network.block);
  } catch (e) {
    bad(`network: ${errorMessage(e)}`);
  }
  const l = grant.limits;
  const positive = (name: string, v: number | undefined, optional = false) => {
    if (optional && v === undefined) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      bad(`limits.${name} must be a positive number, got ${v}`);
  };
  positive('timeoutMs', l?.timeoutMs);
  positive('maxMemoryBytes', l?.maxMemoryBytes);
  positive('maxOutputBytes', l?.maxOutputBytes);
  positive('fuel', l?.fuel, true);
  positive('maxWriteBytes', l?.maxWriteBytes, true);
  positive('maxDiskBytes', l?.maxDiskBytes, true);
  positive('maxEntries', l?.maxEntries, true);
  positive('maxResponseBytes', l?.maxResponseBytes, true);
  return { ...grant, env, mounts, network };
}
