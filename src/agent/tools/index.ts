// Public names of the tool layer: self-describing WASM tools, the registry, permissions and grants.

export {
  type ApprovalAnswer,
  type ApprovalGate,
  type ApprovalQuestion,
  type ApprovalReason,
  type ApprovalRules,
  type AskApproval,
  approvalReasons,
  createApprovalGate,
  permitsWithApproval,
  toolsNeedingApproval,
} from './approvals.ts';
export { inputToArgv } from './argv.ts';
export type { BuiltinResult, BuiltinTool } from './builtin.ts';
export { decodeText } from './decode.ts';
export {
  type AccessMode,
  grantFor,
  type HostToolGrant,
  intersectHosts,
  PERMISSION_LEVELS,
  type PermissionLevel,
  permits,
  type ToolPolicy,
  withHostGrant,
} from './grants.ts';
export { type HelpCommand, HelpError, type HelpParam, mergeHelp, type ParsedHelp, parseHelp } from './help-parse.ts';
export { invokeTool, type ToolCallGrant } from './invoke.ts';
export {
  BUNDLED_TOOLS_DIR,
  extensionToolsDir,
  toolCacheDir,
  toolDirs,
  unlinkedBundledToolsHint,
} from './locations.ts';
export { capContent, DEFAULT_MAX_CONTENT_CHARS, type ToolResult, toolResultOf } from './output.ts';
export {
  createToolRegistry,
  type RegisteredTool,
  type RegistryEvent,
  registerFile,
  type ShadowedTool,
  type ToolRegistry,
  type ToolRegistryOptions,
  type ToolSource,
} from './registry.ts';
export { checkInput, inputSchemaOf, type JsonSchema } from './schema.ts';
export { buildSpec, importsExceedDeclaration, TOOL_NAME, ToolRefusedError, type ToolSpec } from './spec.ts';
export { createToolSearch, type SearchableTool, searchTools } from './tool-search.ts';
export { searchServiceOf, type WebSearchConfig, webSearchGrant } from './web-search-grant.ts';
