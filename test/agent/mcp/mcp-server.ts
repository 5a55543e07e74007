// A real MCP server for tests, built with the same SDK the client uses: Streamable HTTP
// (stateless: a fresh protocol server per request) on 127.0.0.1, port 0, started and stopped
// by the test. Records each request's headers, so a test can see what the client sent.
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http';
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
  close(): Promise<void>;
}

/** Starts a server offering `tools`; with `requireAuth`, requests without that Authorization header get 401. */
export async function startMcpServer(tools: TestMcpTool[], o: { requireAuth?: string } = {}): Promise<TestMcpServer> {
  const headers: IncomingHttpHeaders[] = [];
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const http: HttpServer = createServer(async (req, res) => {
    headers.push(req.headers);
    if (o.requireAuth && req.headers.authorization !== o.requireAuth) {
      // Like a careless server, it echoes what it got: the client's error then holds the secret.
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unauthorized: ${req.headers.authorization}`);
      return;
    }
    const server = new Server({ name: 'test-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description ?? t.name,
        inputSchema: (t.inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (r) => {
      const args = (r.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: r.params.name, args });
      const tool = tools.find((t) => t.name === r.params.name);
      if (!tool) return { content: [{ type: 'text', text: `no tool ${r.params.name}` }], isError: true };
      return tool.run(args);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    calls,
    async close() {
      if (closed) return;
      closed = true;
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
