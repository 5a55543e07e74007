// wasi:cli for guests: arguments and environment exactly as granted (nothing inherited from
// the host), stdin from the grant, stdout/stderr captured per call under a byte cap, and an
// `exit` that ends the call (never the host process).
import type { Binding } from './context.ts';
import { InputStream, OutputStream } from './io.ts';

/** `wasi:cli/terminal-*` resources: guests never get a terminal. */
class TerminalInput {}
class TerminalOutput {}

/** The `wasi:cli/*` import objects, reading the current call from `binding`. */
export function cliImports(binding: Binding): Record<string, Record<string, unknown>> {
  const stdout = () => new OutputStream({ write: (bytes) => binding.current.writeOutput('stdout', bytes) });
  const stderr = () => new OutputStream({ write: (bytes) => binding.current.writeOutput('stderr', bytes) });
  const stdin = () => {
    const ctx = binding.current;
    return new InputStream({
      read(max) {
        if (ctx.stdinOffset >= ctx.stdin.length) return null;
        const chunk = ctx.stdin.subarray(ctx.stdinOffset, ctx.stdinOffset + max);
        ctx.stdinOffset += chunk.length;
        return chunk.slice();
      },
    });
  };
  const exit = (code: number) => binding.current.fail({ exit: code });
  return {
    'wasi:cli/environment': {
      getEnvironment: () => binding.current.env.map(([k, v]) => [k, v]),
      getArguments: () => [...binding.current.argv],
      initialCwd: () => '/',
    },
    'wasi:cli/exit': {
      exit: (status: { tag: 'ok' | 'err' }) => exit(status.tag === 'ok' ? 0 : 1),
      exitWithCode: (code: number) => exit(code),
    },
    'wasi:cli/stdin': { getStdin: stdin },
    'wasi:cli/stdout': { getStdout: stdout },
    'wasi:cli/stderr': { getStderr: stderr },
    'wasi:cli/terminal-input': { TerminalInput },
    'wasi:cli/terminal-output': { TerminalOutput },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
  };
}
