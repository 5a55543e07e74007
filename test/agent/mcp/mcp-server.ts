// A real MCP server for tests, built with the same SDK the client uses: Streamable HTTP on
// 127.0.0.1, port 0, started and stopped by the test; stateless (a fresh protocol server per
// request) or with sessions, which a restart forgets as a real server's would. Records each
// request's headers, so a test can see what the client sent.
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** One tool the test server offers. */
export interface TestMcpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  run(args: Record<string, unknown>): CallToolResult | Promise<CallToolResult>;
}

/** A running test server. */
export interface TestMcpServer {
  url: string;
  /** Headers of every HTTP request received, in order. */
  readonly headers: IncomingHttpHeaders[];
  /** Tool calls received: name and arguments. */
  readonly calls: { name: string; args: Record<string, unknown> }[];
  /** tools/list requests served. */
  readonly lists: number;
  /** Stops and starts again on the same port, forgetting every session. */
  restart(): Promise<void>;
  /** Forgets every session while running (as a server that expires them): their requests get 404. */
  forgetSessions(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a server offering `tools`; with `requireAuth`, requests without that Authorization header get 401; with
 * `stateful`, clients get a session id and an unknown one gets 404.
 */
export async function startMcpServer(
  tools: TestMcpTool[],
  o: { requireAuth?: string; stateful?: boolean } = {},
): Promise<TestMcpServer> {
  const headers: IncomingHttpHeaders[] = [];
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  let lists = 0;
  let sessions = new Map<string, StreamableHTTPServerTransport>();
  function protocolServer(): Server {
    const server = new Server({ name: 'test-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      lists++;
      return {
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description ?? t.name,
          inputSchema: (t.inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (r) => {
      const args = (r.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: r.params.name, args });
      const tool = tools.find((t) => t.name === r.params.name);
      if (!tool) return { content: [{ type: 'text', text: `no tool ${r.params.name}` }], isError: true };
      return tool.run(args);
    });
    return server;
  }
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    headers.push(req.headers);
    if (o.requireAuth && req.headers.authorization !== o.requireAuth) {
      // Like a careless server, it echoes what it got: the client's error then holds the secret.
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unauthorized: ${req.headers.authorization}`);
      return;
    }
    if (o.stateful) {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const known = sessions.get(id);
        if (!known) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        await known.handleRequest(req, res);
        return;
      }
      const mine = sessions;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void mine.set(sid, transport),
      });
      await protocolServer().connect(transport);
      await transport.handleRequest(req, res);
      return;
    }
    const server = protocolServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }
  const listen = async (port: number): Promise<HttpServer> => {
    const http = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    return http;
  };
  let http: HttpServer | undefined = await listen(0);
  const { port } = http.address() as AddressInfo;
  const stop = async () => {
    const h = http;
    http = undefined;
    if (!h) return;
    h.closeAllConnections();
    await new Promise<void>((resolve) => h.close(() => resolve()));
    for (const t of sessions.values()) await t.close();
    sessions = new Map();
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    calls,
    get lists() {
      return lists;
    },
    async forgetSessions() {
      const old = sessions;
      sessions = new Map();
      for (const t of old.values()) await t.close();
    },
    async restart() {
      await stop();
      http = await listen(port);
    },
    close: stop,
  };
}
