// Every MCP server a conversation may use, behind one object: connections are shared by every
// run that names the same server (same config), and each policy's servers become built-in tools.
// A server that is down contributes its last listed tools (whose calls then fail as error
// results) or none; it never holds up or fails a run.
import type { McpConnectionSpec, McpServerConfig } from '../../config/mcp.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { redactSecrets } from '../../core/redact.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import type { PermissionLevel } from '../tools/grants.ts';
import { createMcpConnection, type McpConnection, type McpConnectionOptions, type McpToolInfo } from './connection.ts';
import { mcpTool, mcpToolName, serverOffers } from './mcp-tool.ts';

/** The servers of one policy, by name (ResolvedPolicy.mcp). */
export type McpServers = Record<string, McpServerConfig>;

/** What `doctor` shows of one server. */
export interface McpServerReport {
  name: string;
  /** `url` or the command line. */
  where: string;
  level: PermissionLevel;
  /** Listed tools (prefixed names); undefined when not contacted or unreachable. */
  tools?: string[];
  error?: string;
}

/** The MCP servers of the process. */
export interface McpHub {
  /** The tools a run under `servers` is offered, listing servers not listed lately. Never throws. */
  toolsFor(servers: McpServers | undefined): Promise<BuiltinTool[]>;
  /** The same from the lists already fetched: nothing is contacted (for /whoami). */
  cachedToolsFor(servers: McpServers | undefined): BuiltinTool[];
  /** Each server and its tools; with `offline`, only what the config says. */
  inspect(servers: McpServers | undefined, opts?: { offline?: boolean }): Promise<McpServerReport[]>;
  /** Closes every connection (stdio servers are stopped). */
  close(): Promise<void>;
}

/** Options of createMcpHub. */
export interface McpHubOptions extends Partial<Omit<McpConnectionOptions, 'log'>> {
  /** The server's connection with its secrets filled in (src/config's mcpConnection over the secrets). */
  connectionOf(
    name: string,
    server: McpServerConfig,
  ): { ok: true; spec: McpConnectionSpec } | { ok: false; error: string };
  log?: Logger;
}

const enabled = (servers: McpServers | undefined): [string, McpServerConfig][] =>
  Object.entries(servers ?? {})
    .filter(([, s]) => s.enabled !== false)
    .sort(([a], [b]) => a.localeCompare(b));

/** Creates the hub; nothing is contacted until a run or `inspect` asks. */
export function createMcpHub(o: McpHubOptions): McpHub {
  const log = o.log ?? silentLogger;
  const connections = new Map<string, McpConnection>();
  const warned = new Set<string>();

  function connectionOf(name: string, cfg: McpServerConfig): McpConnection | { error: string } {
    const r = o.connectionOf(name, cfg);
    if (!r.ok) {
      if (!warned.has(name)) log.warn({ server: name, error: r.error }, 'MCP server not usable');
      warned.add(name);
      return { error: r.error };
    }
    let conn = connections.get(r.spec.key);
    if (!conn) {
      conn = createMcpConnection(r.spec, { ...o, log });
      connections.set(r.spec.key, conn);
    }
    return conn;
  }

  /** The server's offered tools; a second tool whose model-facing name is taken (`a.b` and `a_b`) is left out. */
  function toolsOf(cfg: McpServerConfig, conn: McpConnection, list: McpToolInfo[]): BuiltinTool[] {
    const out = new Map<string, BuiltinTool>();
    for (const t of list) {
      if (!serverOffers(cfg, t.name)) continue;
      const tool = mcpTool(cfg, conn, t);
      if (out.has(tool.name)) {
        const key = `${conn.spec.key}:${t.name}`;
        if (!warned.has(key)) log.warn({ server: conn.spec.name, tool: t.name }, 'MCP tool name taken; left out');
        warned.add(key);
      } else out.set(tool.name, tool);
    }
    return [...out.values()];
  }

  return {
    async toolsFor(servers) {
      const lists = await Promise.all(
        enabled(servers).map(async ([name, cfg]) => {
          const conn = connectionOf(name, cfg);
          if ('error' in conn) return [];
          try {
            return toolsOf(cfg, conn, await conn.tools());
          } catch (e) {
            log.warn({ server: name, err: redactSecrets(errorMessage(e)) }, 'MCP server tools not listed');
            return toolsOf(cfg, conn, conn.cachedTools() ?? []);
          }
        }),
      );
      return lists.flat();
    },
    cachedToolsFor(servers) {
      return enabled(servers).flatMap(([name, cfg]) => {
        const conn = connectionOf(name, cfg);
        return 'error' in conn ? [] : toolsOf(cfg, conn, conn.cachedTools() ?? []);
      });
    },
    async inspect(servers, opts = {}) {
      return Promise.all(
        enabled(servers).map(async ([name, cfg]): Promise<McpServerReport> => {
          const base = {
            name,
            where: cfg.url ?? [cfg.command, ...(cfg.args ?? [])].join(' '),
            level: cfg.level ?? 'Execute',
          };
          const r = o.connectionOf(name, cfg);
          if (!r.ok) return { ...base, error: r.error };
          if (opts.offline) return base;
          const conn = connectionOf(name, cfg);
          if ('error' in conn) return { ...base, error: conn.error };
          try {
            const tools = (await conn.tools()).filter((t) => serverOffers(cfg, t.name));
            return { ...base, tools: tools.map((t) => mcpToolName(name, t.name)) };
          } catch (e) {
            return { ...base, error: redactSecrets(errorMessage(e)) };
          }
        }),
      );
    },
    async close() {
      await Promise.all([...connections.values()].map((c) => c.close()));
      connections.clear();
    },
  };
}
