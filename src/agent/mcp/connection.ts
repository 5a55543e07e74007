// One MCP server as the host sees it: a lazily opened client connection (Streamable HTTP with the
// older HTTP+SSE transport as fallback, or a local stdio process), reused across runs and opened
// again after it drops, and the server's tool list cached until it is stale or the server says
// it changed. Every request has the server's timeout; nothing here throws past a caller's catch.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnectionSpec } from '../../config/mcp.ts';
import { BoxbotError, errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';

let sdkModules: ReturnType<typeof importSdk> | undefined;

/** Imports the parts of the MCP SDK a connection uses. */
function importSdk() {
  return Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, sse, stdio, http, types]) => ({
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
}

/**
 * The MCP SDK, loaded at the first connection rather than with the gateway: with no MCP server
 * configured (the usual case), a start never pays for loading it.
 */
function sdk(): ReturnType<typeof importSdk> {
  sdkModules ??= importSdk();
  return sdkModules;
}

/** A server that cannot be reached or did not answer in time (retryable: it may come back). */
export class McpError extends BoxbotError<'mcp-unavailable'> {
  readonly server: string;
  constructor(server: string, message: string) {
    super('mcp-unavailable', `MCP server ${server}: ${message}`, true);
    this.server = server;
  }
}

/** One tool a server lists (what the host keeps of it). */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A live (or to be opened) connection to one server. */
export interface McpConnection {
  readonly spec: McpConnectionSpec;
  /** The server's tools: cached, listed again when stale or changed. Throws McpError. */
  tools(): Promise<McpToolInfo[]>;
  /** The tools last listed, without contacting the server (undefined: never listed). */
  cachedTools(): McpToolInfo[] | undefined;
  /** Calls one tool. Throws McpError when the server is down or too slow. */
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Options of createMcpConnection. */
export interface McpConnectionOptions {
  log: Logger;
  /** How long a tool list is trusted (default 5 minutes). */
  listTtlMs?: number;
  /** After a failed connect, requests fail at once for this long instead of waiting again (default 15 s). */
  retryAfterMs?: number;
  now?: () => number;
  /** The MCP client's name and version sent to servers. */
  clientInfo?: { name: string; version: string };
}

/** Errors after which the request cannot have reached the tool, so sending it again runs it at most once. */
function notDelivered(e: unknown): boolean {
  const text = `${errorMessage(e)} ${String((e as { cause?: unknown })?.cause ?? '')}`;
  // A restarted Streamable HTTP server no longer knows the session (404); a refused connection
  // sent nothing. A reset or a timeout may come after the server started the tool: never retried.
  return /\b404\b|session not found|ECONNREFUSED|Not connected/i.test(text);
}

/** Creates the (not yet opened) connection of one server. */
export function createMcpConnection(spec: McpConnectionSpec, o: McpConnectionOptions): McpConnection {
  const now = o.now ?? Date.now;
  const ttl = o.listTtlMs ?? 5 * 60_000;
  const retryAfter = o.retryAfterMs ?? 15_000;
  let client: Promise<Client> | undefined;
  let current: Client | undefined; // the client `client` resolved to
  let listed: { at: number; tools: McpToolInfo[] } | undefined;
  let failedAt: { at: number; error: string } | undefined;
  let closed = false;

  const transports = ({
    SSEClientTransport,
    StdioClientTransport,
    StreamableHTTPClientTransport,
  }: Awaited<ReturnType<typeof sdk>>): (() => Transport)[] => {
    if (spec.command) {
      return [
        () =>
          new StdioClientTransport({
            command: spec.command!,
            args: spec.args,
            env: spec.env,
            // The server's stderr is its own log; it never reaches the model or boxbot's log.
            stderr: 'ignore',
          }),
      ];
    }
    const url = new URL(spec.url!);
    const requestInit = { headers: spec.headers };
    const http = () => new StreamableHTTPClientTransport(url, { requestInit });
    const sse = () => new SSEClientTransport(url, { requestInit });
    return spec.transport === 'sse' ? [sse] : spec.transport === 'streamable-http' ? [http] : [http, sse];
  };

  async function open(): Promise<Client> {
    const loaded = await sdk();
    const { Client, ToolListChangedNotificationSchema } = loaded;
    let last: unknown;
    for (const make of transports(loaded)) {
      const c = new Client(o.clientInfo ?? { name: 'boxbot', version: '0' });
      try {
        await c.connect(make(), { timeout: spec.timeoutMs });
      } catch (e) {
        last = e;
        await c.close().catch(() => undefined);
        continue;
      }
      if (closed) {
        // The hub closed while this connection was opening: a stdio server must not outlive it.
        await c.close().catch(() => undefined);
        throw new McpError(spec.name, 'connection closed');
      }
      c.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        listed = undefined;
      });
      c.onclose = () => {
        // The next request opens a new connection (a restarted server, a dropped stream).
        if (client && current === c) client = undefined;
      };
      current = c;
      return c;
    }
    throw new McpError(spec.name, `cannot connect: ${errorMessage(last)}`);
  }

  async function connected(): Promise<Client> {
    if (closed) throw new McpError(spec.name, 'connection closed');
    if (client) return client;
    if (failedAt && now() - failedAt.at < retryAfter) throw new McpError(spec.name, failedAt.error);
    const attempt = open();
    client = attempt;
    try {
      const c = await attempt;
      failedAt = undefined;
      return c;
    } catch (e) {
      if (client === attempt) client = undefined;
      const error = e instanceof McpError ? e.message.replace(/^MCP server [^:]+: /, '') : errorMessage(e);
      failedAt = { at: now(), error };
      throw e instanceof McpError ? e : new McpError(spec.name, error);
    }
  }

  /** Drops a connection that failed, so the next request opens a new one. */
  async function drop(c: Client): Promise<void> {
    if (current === c) {
      client = undefined;
      current = undefined;
    }
    await c.close().catch(() => undefined);
  }

  /** Runs `fn` on the connection; once more on a new one if the request surely never arrived. */
  async function withClient<T>(fn: (c: Client) => Promise<T>, what: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const c = await connected();
      try {
        return await fn(c);
      } catch (e) {
        const lost = notDelivered(e);
        if (lost) await drop(c);
        if (lost && attempt === 0) continue;
        throw new McpError(spec.name, `${what} failed: ${errorMessage(e)}`);
      }
    }
  }

  let listing: Promise<McpToolInfo[]> | undefined;
  /** Lists every page of the server's tools and caches the result. */
  async function list(): Promise<McpToolInfo[]> {
    const tools = await withClient(async (c) => {
      const out: McpToolInfo[] = []; // afresh on a second attempt
      let cursor: string | undefined;
      do {
        const page = await c.listTools(cursor ? { cursor } : undefined, { timeout: spec.timeoutMs });
        for (const t of page.tools)
          out.push({
            name: t.name,
            description: t.description ?? t.title ?? '',
            inputSchema: t.inputSchema as Record<string, unknown>,
          });
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    }, 'listing tools');
    listed = { at: now(), tools };
    return tools;
  }

  return {
    spec,
    async tools() {
      if (listed && now() - listed.at < ttl) return listed.tools;
      // Runs starting together share one listing.
      listing ??= list().finally(() => {
        listing = undefined;
      });
      return listing;
    },
    cachedTools: () => listed?.tools,
    async call(tool, args, signal) {
      return withClient(
        (c) =>
          c.callTool({ name: tool, arguments: args }, undefined, {
            timeout: spec.timeoutMs,
            ...(signal ? { signal } : {}),
          }) as Promise<CallToolResult>,
        `calling ${tool}`,
      );
    },
    async close() {
      closed = true;
      const c = current;
      client = undefined;
      current = undefined;
      if (c) await c.close().catch(() => undefined);
      o.log.debug({ server: spec.name }, 'MCP connection closed');
    },
  };
}
