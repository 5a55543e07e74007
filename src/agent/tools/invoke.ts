// One call of a registered WASM tool: the input is checked against the tool's schema first (a
// bad input returns to the model as an error naming the field), mapped to argv, run in the
// sandbox with the grant the caller computed, and the output mapped for the model.

import { errorMessage } from '../../core/errors.ts';
import type { Mount, NetworkGrant, Sandbox, SandboxLimits } from '../../sandbox/index.ts';
import { inputToArgv } from './argv.ts';
import { type ToolResult, toolResultOf } from './output.ts';
import type { RegisteredTool } from './registry.ts';
import { checkInput } from './schema.ts';

/** The capabilities of one call, computed from the tool's level and the policy (see grants.ts). */
export interface ToolCallGrant {
  mounts: Mount[];
  network: NetworkGrant;
  limits: SandboxLimits;
  /** Variables the guest sees (the host's own, for one tool: never from the model or the policy). */
  env?: Record<string, string>;
}

/** Runs `tool` with `input`; never throws for a tool-level failure (that is an error result). */
export async function invokeTool(
  sandbox: Sandbox,
  tool: RegisteredTool,
  input: unknown,
  grant: ToolCallGrant,
  maxChars?: number,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const { value, errors } = checkInput(input ?? {}, tool.spec.inputSchema);
  if (errors.length) {
    return {
      content: `invalid input for ${tool.spec.name}: ${errors.join('; ')}`,
      isError: true,
      metadata: { invalidInput: true },
    };
  }
  const args = inputToArgv(value, tool.spec.params, tool.spec.commands.length > 0);
  try {
    const r = await sandbox.run(
      tool.blob,
      { args, env: grant.env ?? {}, mounts: grant.mounts, network: grant.network, limits: grant.limits },
      { name: tool.spec.program, ...(signal ? { signal } : {}) },
    );
    return toolResultOf(r, maxChars);
  } catch (e) {
    return { content: `${tool.spec.name} could not run: ${errorMessage(e)}`, isError: true, metadata: {} };
  }
}
