// An MCP server's tool as a host built-in: named `<server>__<tool>`, with the level the admin gave
// the server, so the same permission filter, /whoami and approvals apply to it as to any tool.
// Its result becomes text for the model (the loop caps it like any tool output); a server that is
// down or slow is an error result, never a failed run.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config/mcp.ts';
import { errorMessage } from '../../core/errors.ts';
import { redactSecrets } from '../../core/redact.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import type { McpConnection, McpToolInfo } from './connection.ts';

/** Separates the server's name from its tool's in the name the model sees. */
export const MCP_SEPARATOR = '__';

/** The name the model sees: what every model API accepts (letters, digits, `_`, `-`; 64 at most). */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/** Whether the server's config offers `tool` (its own allow and deny lists; deny wins). */
export function serverOffers(cfg: McpServerConfig, tool: string): boolean {
  if (cfg.tools?.deny?.includes(tool)) return false;
  return !cfg.tools?.allow || cfg.tools.allow.includes(tool);
}

/** What the model reads of a tool result: text as is, other content named, structured content as JSON. */
export function resultText(r: CallToolResult): string {
  const parts = (r.content ?? []).map((c) => {
    switch (c.type) {
      case 'text':
        return c.text;
      case 'image':
      case 'audio':
        return `[${c.type} (${c.mimeType}, ${c.data.length.toLocaleString('en-US')} base64 characters) not shown]`;
      case 'resource':
        return 'text' in c.resource ? c.resource.text : `[binary resource ${c.resource.uri} not shown]`;
      case 'resource_link':
        return `[resource ${c.uri}${c.name ? ` (${c.name})` : ''}]`;
      default:
        return `[${(c as { type: string }).type} content not shown]`;
    }
  });
  if (!parts.length && r.structuredContent !== undefined) return JSON.stringify(r.structuredContent);
  return parts.join('\n');
}

/** How an MCP result is named when it taints a run (approvals.afterUntrusted). */
export function untrustedFrom(server: string, tool: string): string {
  return `a result of ${mcpToolName(server, tool)} (MCP server "${server}")`;
}

/** The built-in that calls `tool` on `conn`. */
export function mcpTool(cfg: McpServerConfig, conn: McpConnection, tool: McpToolInfo): BuiltinTool {
  const server = conn.spec.name;
  return {
    name: mcpToolName(server, tool.name),
    description: `${tool.description || tool.name} (from the MCP server "${server}")`,
    inputSchema: tool.inputSchema,
    permissionLevel: cfg.level ?? 'Execute',
    // The server validates its own input against its own schema, which may use more of JSON
    // Schema than the host's check knows.
    checksOwnInput: true,
    mcpServer: server,
    async run(input, { signal }) {
      try {
        const r = await conn.call(tool.name, input, signal);
        // What a server returns may carry someone else's instructions (a web page, an issue
        // comment): with approvals.afterUntrusted, writes after it need a person's yes.
        return { content: resultText(r), isError: r.isError === true, untrusted: untrustedFrom(server, tool.name) };
      } catch (e) {
        if (signal?.aborted) throw e;
        // An error's text is the server's words as much as a result is (a JSON-RPC error message,
        // a proxy's page): it taints the run alike.
        return { content: redactSecrets(errorMessage(e)), isError: true, untrusted: untrustedFrom(server, tool.name) };
      }
    },
  };
}
