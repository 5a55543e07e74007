// The `mcp` and `memory` sections of the config, and the one place an MCP server's secrets are
// read: header values and a stdio server's environment come from named environment variables,
// so no secret lives in the config file, and nothing but the server's transport sees them.
import { z } from 'zod';
import type { Secrets } from './env.ts';

const level = z.enum(['None', 'ReadOnly', 'Write', 'Execute']);

/**
 * One MCP server an admin names: remote (`url`, Streamable HTTP with SSE fallback) or local
 * (`command`, a stdio process that runs outside the sandbox). Its tools are `<name>__<tool>`.
 */
export const mcpServerSchema = z
  .object({
    /** Remote server endpoint (trusted: an admin named it; loopback is fine). */
    url: z.string().url().optional(),
    /** `auto` (default): Streamable HTTP, then the older HTTP+SSE transport if that fails. */
    transport: z.enum(['auto', 'streamable-http', 'sse']).optional(),
    /** Header name → name of the environment variable holding its value (e.g. a bearer token). */
    headersFromEnv: z.record(z.string()).optional(),
    /** Local stdio server: the program to start (runs outside the sandbox, as boxbot's user). */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** The stdio server's extra environment: variable name → name of boxbot's variable holding the value. */
    env: z.record(z.string()).optional(),
    /** Which of the server's tools (unprefixed names) are offered; deny wins. */
    tools: z
      .object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
      .strict()
      .optional(),
    /** The permission level every tool of this server has (default Execute). */
    level: level.optional(),
    /** Connect, list and call timeout (default 30 s). */
    timeoutMs: z.number().int().positive().optional(),
    /** false: a narrower policy level turns off a server a wider one named. */
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((s) => s.enabled === false || !!s.url !== !!s.command, {
    message: 'give exactly one of "url" (a remote server) or "command" (a local stdio server)',
  });

/** An MCP server's config entry. */
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/** Server names become tool-name prefixes, so they keep to what every model API accepts. */
const serverName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,30}$/, 'a server name is 1-31 letters, digits or dashes (no underscores)');

/** `mcp` at the top level and in every policy override (platform, chat, user). */
export const mcpSchema = z.object({ servers: z.record(serverName, mcpServerSchema).default({}) }).strict();

/** Long-term memory (the memory tools and the prompt's digest). */
export const memorySchema = z
  .object({
    /** false: no memory tools, no digest, /memory says it is off. */
    enabled: z.boolean().default(true),
    /** Most characters of remembered notes put into the system prompt (about a quarter as many tokens). */
    digestChars: z.number().int().min(0).max(20_000).default(2000),
  })
  .strict();

/** Every server entry anywhere in the config (top level, channels, chats, users), for secrets and doctor. */
export function mcpEntries(config: {
  mcp?: { servers: Record<string, McpServerConfig> } | undefined;
  channels?: Record<string, unknown>;
}): [name: string, server: McpServerConfig][] {
  const out: [string, McpServerConfig][] = [];
  const add = (o: unknown) => {
    const servers = (o as { mcp?: { servers?: Record<string, McpServerConfig> } } | undefined)?.mcp?.servers;
    for (const [name, s] of Object.entries(servers ?? {})) out.push([name, s]);
  };
  add(config);
  for (const ch of Object.values(config.channels ?? {})) {
    if (!ch || typeof ch !== 'object') continue;
    add(ch);
    const c = ch as Record<string, unknown>;
    for (const table of [c.chats, c.channels, c.users])
      for (const o of Object.values((table ?? {}) as Record<string, unknown>)) add(o);
  }
  return out;
}

/** The environment variables MCP servers name (read as secrets beside the standard ones). */
export function mcpEnvNames(config: Parameters<typeof mcpEntries>[0]): string[] {
  return [
    ...new Set(
      mcpEntries(config).flatMap(([, s]) => [...Object.values(s.headersFromEnv ?? {}), ...Object.values(s.env ?? {})]),
    ),
  ];
}

/** How to reach one server, secrets filled in: only the MCP client's transport reads this. */
export interface McpConnectionSpec {
  name: string;
  /** Identity for connection reuse: the same name configured differently is another connection. */
  key: string;
  url?: string;
  transport: 'auto' | 'streamable-http' | 'sse';
  headers: Record<string, string>;
  command?: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}

/** Default connect, list and call timeout of a server. */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

/** The connection of server `name`, or the variables it names that are not set. */
export function mcpConnection(
  name: string,
  s: McpServerConfig,
  secrets: Secrets,
): { ok: true; spec: McpConnectionSpec } | { ok: false; error: string } {
  const missing: string[] = [];
  const fill = (m: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, envName] of Object.entries(m ?? {})) {
      const v = secrets[envName];
      if (v === undefined) missing.push(envName);
      else out[k] = v;
    }
    return out;
  };
  const headers = fill(s.headersFromEnv);
  const env = fill(s.env);
  if (missing.length) return { ok: false, error: `${missing.join(', ')} not set` };
  // The key names the variables, never their values (it shows up in logs).
  const key = JSON.stringify([name, s.url, s.transport, s.headersFromEnv, s.command, s.args, s.env, s.timeoutMs]);
  return {
    ok: true,
    spec: {
      name,
      key,
      ...(s.url ? { url: s.url } : {}),
      transport: s.transport ?? 'auto',
      headers,
      ...(s.command ? { command: s.command } : {}),
      args: s.args ?? [],
      env,
      timeoutMs: s.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
    },
  };
}
