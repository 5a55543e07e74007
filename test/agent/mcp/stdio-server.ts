// A local MCP server over stdio for tests (the same SDK): one tool, `greet`, answering with the
// GREETING variable of its environment, which boxbot fills from a named variable of its own.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'test-stdio', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'greet', description: 'Say the greeting', inputSchema: { type: 'object', properties: {} } }],
}));
server.setRequestHandler(CallToolRequestSchema, async () => ({
  content: [{ type: 'text', text: `greeting: ${process.env.GREETING ?? '(unset)'}` }],
}));
await server.connect(new StdioServerTransport());
