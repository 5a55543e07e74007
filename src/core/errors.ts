// The one error base class: a string code, a retryable flag, and a message that names what
// was wrong. Subclasses add context (SandboxError{tool}, later AdapterError, ProviderError).

/**
 * Base of every error boxbot raises on purpose. A subclass names the union of its codes, so a
 * `switch (e.code)` over one is checked: `class StoreError extends BoxbotError<'corrupt' | 'io'>`.
 */
export class BoxbotError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A command-line or config usage error (exit code 2). */
export class UsageError extends BoxbotError<'usage'> {
  constructor(message: string) {
    super('usage', message);
  }
}

/** The message of anything thrown: an Error's message, anything else as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The system error code (ECONNREFUSED, ENOTFOUND, UND_ERR_...) behind a failed `fetch`: undici
 * throws "fetch failed" and keeps the reason in `cause`. Never includes the URL, which undici's
 * messages can, and which may carry a token.
 */
export function fetchFailureCode(e: unknown): string | undefined {
  const code = (e as { cause?: { code?: unknown } } | null | undefined)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}
