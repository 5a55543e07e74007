// Tools implemented in TypeScript inside boxbot (ToolSearch, skill, agent, schedule): the same
// shape the loop sees for WASM tools, with a level so the permission filter treats them alike.
import type { PermissionLevel } from './grants.ts';
import type { JsonSchema } from './schema.ts';

/** The result of a built-in tool call. */
export interface BuiltinResult {
  content: string;
  isError: boolean;
  /** Set when the content came from somewhere the run cannot trust (says what, for `approvals.afterUntrusted`). */
  untrusted?: string;
}

/** A tool that runs in the host process (it must not touch files, network or code itself). */
export interface BuiltinTool {
  name: string;
  description: string;
  inputSchema: JsonSchema | Record<string, unknown>;
  permissionLevel: PermissionLevel;
  /** It writes to the conversation's workspace (through the sandbox): the run is told before it runs. */
  writesWorkspace?: boolean;
  /** The input goes to the tool unchecked (an MCP server checks it against its own, richer schema). */
  checksOwnInput?: boolean;
  /** The MCP server the tool calls: its results and errors are recorded as that server's, untrusted. */
  mcpServer?: string;
  /**
   * What a call with `input` would get in the sandbox, for the approval question (like a WASM tool's grant): host
   * folders and hosts. Absent: the tool touches neither.
   */
  reach?(input: Record<string, unknown>): { folders: { path: string; readOnly: boolean }[]; hosts: string[] };
  /** `ctx.untrusted`: what untrusted content the run has read so far (what it saves may carry it). */
  run(
    input: Record<string, unknown>,
    ctx: { signal?: AbortSignal; untrusted?: readonly string[] },
  ): Promise<BuiltinResult>;
}
