// Errors the sandbox raises to its callers (not guest traps: those are results).
import { BoxbotError } from '../core/errors.ts';

/** Why a tool could not be run at all. */
export type SandboxErrorCode = 'not-found' | 'invalid-tool' | 'bad-grant' | 'closed' | 'cancelled' | 'internal';

/** A tool file or grant the sandbox refused, naming the tool. */
export class SandboxError extends BoxbotError<SandboxErrorCode> {
  constructor(
    code: SandboxErrorCode,
    message: string,
    readonly tool: string,
  ) {
    super(code, message, code === 'internal');
  }
}
