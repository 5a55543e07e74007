// Public names of the tool layer: self-describing WASM tools, the registry, permissions and grants.
export { createToolRegistry, registerFile, type RegisteredTool, type RegistryEvent, type ShadowedTool, type ToolRegistry, type ToolRegistryOptions, type ToolSource } from './registry.ts';
export { BUNDLED_TOOLS_DIR, extensionToolsDir, toolCacheDir, toolDirs } from './locations.ts';
export { buildSpec, importsExceedDeclaration, ToolRefusedError, TOOL_NAME, type ToolSpec } from './spec.ts';
export { parseHelp, mergeHelp, HelpError, type HelpParam, type HelpCommand, type ParsedHelp } from './help-parse.ts';
export { inputSchemaOf, checkInput, type JsonSchema } from './schema.ts';
export { inputToArgv } from './argv.ts';
export { toolResultOf, capContent, DEFAULT_MAX_CONTENT_CHARS, type ToolResult } from './output.ts';
export { decodeText } from './decode.ts';
export { invokeTool, type ToolCallGrant } from './invoke.ts';
export { permits, grantFor, intersectHosts, PERMISSION_LEVELS, type AccessMode, type PermissionLevel, type ToolPolicy } from './grants.ts';
export { createToolSearch, searchTools, type SearchableTool } from './tool-search.ts';
export type { BuiltinTool, BuiltinResult } from './builtin.ts';
