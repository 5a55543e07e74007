// `boxbot doctor`'s MCP lines: every configured server (top level and policy overrides) with its
// tools, or why it cannot be used; with --offline only the config is read and no server contacted.
import type { Secrets } from '../config/env.ts';
import type { LoadedConfig } from '../config/load.ts';
import { mcpConnection, mcpEntries } from '../config/mcp.ts';

/** One doctor line. */
export interface McpLine {
  ok: boolean;
  what: string;
  detail: string;
}

/** A line per configured MCP server. */
export async function checkMcp(loaded: LoadedConfig, secrets: Secrets, offline: boolean): Promise<McpLine[]> {
  const entries = mcpEntries(loaded.config);
  if (!entries.length) return [];
  // Loaded only when servers are configured: the MCP SDK is a large part of a doctor run's start.
  const { createMcpHub } = await import('../agent/mcp/index.ts');
  const hub = createMcpHub({ connectionOf: (name, server) => mcpConnection(name, server, secrets), retryAfterMs: 0 });
  try {
    const lines: McpLine[] = [];
    const seen = new Set<string>();
    for (const [name, server] of entries) {
      const id = JSON.stringify([name, server]);
      if (seen.has(id)) continue;
      seen.add(id);
      const [r] = await hub.inspect({ [name]: server }, { offline });
      const what = `mcp ${name}`;
      if (!r) {
        lines.push({ ok: true, what, detail: 'turned off here (enabled: false)' });
        continue;
      }
      const head = `${r.where} (level ${r.level})`;
      if (r.error) lines.push({ ok: false, what, detail: `${head}: ${r.error}` });
      else if (!r.tools) lines.push({ ok: true, what, detail: `${head}; not contacted (--offline)` });
      else lines.push({ ok: true, what, detail: `${head}: ${r.tools.length} tool(s) (${r.tools.join(', ')})` });
    }
    return lines;
  } finally {
    await hub.close();
  }
}
