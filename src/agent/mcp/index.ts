// MCP (Model Context Protocol) servers' tools as host built-ins: the hub, its connections and the tool mapping.
export { createMcpConnection, type McpConnection, McpError, type McpToolInfo } from './connection.ts';
export { createMcpHub, type McpHub, type McpHubOptions, type McpServerReport, type McpServers } from './hub.ts';
export { MCP_SEPARATOR, mcpTool, mcpToolName, resultText } from './mcp-tool.ts';
