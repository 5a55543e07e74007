// Permissions as data: which tools an access mode permits (None < ReadOnly < Write < Execute),
// the allow/deny lists, and the sandbox grant of one call from the tool's level and the policy.
// The same check filters the list the model sees and guards every call before it runs.

import type { SandboxLimits } from '../../sandbox/index.ts';
import { type HostPattern, parseHostPatterns } from '../../sandbox/net/host-pattern.ts';
import type { ApprovalRules } from './approvals.ts';
import type { ToolCallGrant } from './invoke.ts';

/** The levels a tool can declare, weakest first. */
export const PERMISSION_LEVELS = ['None', 'ReadOnly', 'Write', 'Execute'] as const;
/** What a tool may touch: None < ReadOnly < Write < Execute. */
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/** How much a conversation may do (README, "Configuration"). */
export type AccessMode = 'full' | 'read-only' | 'chat-only';

/** The part of a resolved policy that decides tools and grants. */
export interface ToolPolicy {
  access: AccessMode;
  tools?: { allow?: string[]; deny?: string[] };
  /** The conversation's workspace on the host (guest `/`). */
  workspace: string;
  network: { allow: string[]; block: string[] };
  limits: SandboxLimits;
  /** Which calls wait for a person's yes (policy `approvals`). */
  approvals?: ApprovalRules;
}

const LEVELS_BY_ACCESS: Record<AccessMode, PermissionLevel[]> = {
  full: ['None', 'ReadOnly', 'Write', 'Execute'],
  'read-only': ['None', 'ReadOnly'],
  'chat-only': ['None'],
};

/** Whether the policy lets a tool of this name and level run; `reason` says why not. */
export function permits(
  policy: Pick<ToolPolicy, 'access' | 'tools'>,
  name: string,
  level: PermissionLevel,
): { ok: true } | { ok: false; reason: string } {
  if (!LEVELS_BY_ACCESS[policy.access].includes(level)) {
    return { ok: false, reason: `${name} needs ${level} access, and this conversation is ${policy.access}` };
  }
  if (policy.tools?.deny?.includes(name)) return { ok: false, reason: `${name} is denied in this conversation` };
  if (policy.tools?.allow && !policy.tools.allow.includes(name))
    return { ok: false, reason: `${name} is not in this conversation's allowed tools` };
  return { ok: true };
}

function covers(outer: HostPattern, inner: HostPattern): boolean {
  if (outer.scheme !== '*' && outer.scheme !== inner.scheme) return false;
  if (outer.port !== '*' && outer.port !== inner.port) return false;
  if (!outer.wildcardSubdomains) return !inner.wildcardSubdomains && outer.host === inner.host;
  // `*.x` covers itself (the same subdomains) and whatever lies under it, never `x` alone.
  return (inner.wildcardSubdomains && inner.host === outer.host) || inner.host.endsWith(`.${outer.host}`);
}

/** Hosts both the tool declares and the policy allows (`*` declared = the policy's hosts). */
export function intersectHosts(declared: string[], allowed: string[]): string[] {
  if (!declared.length || !allowed.length) return [];
  if (declared.includes('*')) return [...allowed];
  const d = declared.map((p) => ({ p, h: parseHostPatterns([p])[0]! }));
  const a = allowed.map((p) => ({ p, h: parseHostPatterns([p])[0]! }));
  const out = new Set<string>();
  for (const x of d) if (a.some((y) => covers(y.h, x.h))) out.add(x.p);
  for (const y of a) if (d.some((x) => covers(x.h, y.h))) out.add(y.p);
  return [...out];
}

/** The grant of one call: `None` no mounts; `ReadOnly` the workspace read-only; `Write`/`Execute` read-write. */
export function grantFor(level: PermissionLevel, declaredHosts: string[], policy: ToolPolicy): ToolCallGrant {
  const mounts = level === 'None' ? [] : [{ host: policy.workspace, guest: '/', readOnly: level === 'ReadOnly' }];
  return {
    mounts,
    network: { allow: intersectHosts(declaredHosts, policy.network.allow), block: policy.network.block },
    limits: policy.limits,
  };
}

/**
 * What the host itself grants one tool, beyond the policy (the `web_search` service the config chose): exactly
 * these hosts, and variables only this tool's sandbox sees (its key). The model never sees either.
 */
export interface HostToolGrant {
  hosts: string[];
  /** Networks still blocked (the policy's, unless the configured host is a literal local address). */
  block?: string[];
  env: Record<string, string>;
}

/** A call's grant with the host's own grant for that tool in place of the policy's network. */
export function withHostGrant(grant: ToolCallGrant, host: HostToolGrant | undefined): ToolCallGrant {
  if (!host) return grant;
  return {
    ...grant,
    network: { allow: [...host.hosts], block: host.block ?? grant.network.block },
    env: { ...host.env },
  };
}
