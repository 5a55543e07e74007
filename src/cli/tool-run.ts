// `boxbot tool run`: one sandboxed call of a tool file with a grant built from flags; `--input`
// JSON becomes argv through the agent's own mapping, so the CLI runs what the model would.
// Text mode passes the guest's output through and exits with its code; JSON mode prints the
// SandboxResult with stdout/stderr as UTF-8 strings.
import { basename, resolve } from 'node:path';
import { checkInput, inputToArgv, registerFile } from '../agent/tools/index.ts';
import { errorMessage, UsageError } from '../core/errors.ts';
import {
  createSandbox,
  DEFAULT_LIMITS,
  type Mount,
  type Sandbox,
  type SandboxGrant,
  type SandboxOptions,
  type SandboxResult,
} from '../sandbox/index.ts';

/** Flags of `tool run`, as commander parsed them. */
export interface ToolRunFlags {
  dir: string[];
  env: string[];
  allowHost: string[];
  block: string[];
  timeout?: string;
  fuel?: string;
  maxMemory?: string;
  maxOutput?: string;
  input?: string;
  format: string;
}

/**
 * `HOST[:GUEST][:ro|:rw]`; the first mount defaults to guest `/`, later ones to `/<basename>`.
 * Anything else is refused: a mistyped mode (`:RO`) must never silently mean read-write.
 */
export function parseDir(spec: string, first: boolean): Mount {
  const parts = spec.split(':');
  const host = parts[0]!;
  if (!host) throw new UsageError(`--dir ${spec}: expected HOST[:GUEST][:ro|:rw]`);
  let mode: string | undefined;
  let guest: string | undefined;
  if (parts.length === 2) {
    if (parts[1] === 'ro' || parts[1] === 'rw') mode = parts[1];
    else guest = parts[1];
  } else if (parts.length === 3) {
    guest = parts[1];
    mode = parts[2];
    if (mode !== 'ro' && mode !== 'rw')
      throw new UsageError(`--dir ${spec}: unknown mode ${JSON.stringify(mode)}; accepted: ro, rw`);
  } else if (parts.length > 3) {
    throw new UsageError(`--dir ${spec}: expected HOST[:GUEST][:ro|:rw]; the guest path may not contain ':'`);
  }
  if (guest !== undefined && !guest.startsWith('/')) {
    throw new UsageError(
      `--dir ${spec}: ${JSON.stringify(guest)} is neither a guest path (starting with /) nor a mode (ro, rw)`,
    );
  }
  return { host: resolve(host), guest: guest ?? (first ? '/' : `/${basename(host)}`), readOnly: mode === 'ro' };
}

function parseEnv(spec: string): [string, string] {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--env ${spec}: expected NAME=VALUE`);
  return [spec.slice(0, eq), spec.slice(eq + 1)];
}

function positiveInt(flag: string, v: string | undefined, fallback: number | undefined): number | undefined {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} ${v}: expected a positive number`);
  return n;
}

/** The `--input` JSON, parsed; a UsageError when it is not JSON. */
export function parseInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new UsageError(`--input is not valid JSON: ${errorMessage(e)}`);
  }
}

/**
 * The argv for `input`, built exactly as the agent builds it: the tool's spec (from its help,
 * cached like the registry's) checks the input and says which fields are positional and which
 * flags take values, so `tool run --input` runs what the model's call would run.
 */
export async function argvForInput(
  sandbox: Sandbox,
  file: string,
  input: unknown,
  specCacheDir: string,
): Promise<string[]> {
  const { spec } = await registerFile(sandbox, file, specCacheDir);
  const { value, errors } = checkInput(input, spec.inputSchema);
  if (errors.length) throw new UsageError(`--input for ${spec.name}: ${errors.join('; ')}`);
  return inputToArgv(value, spec.params, spec.commands.length > 0);
}

/**
 * Builds the grant the flags describe (`--input` is mapped later, see argvForInput); nothing is granted that a flag did
 * not name.
 */
export function grantFromFlags(flags: ToolRunFlags, args: string[]): SandboxGrant {
  if (flags.input !== undefined && args.length > 0) {
    throw new UsageError('give either --input JSON or -- ARGS, not both');
  }
  const block = flags.block.length === 0 ? ['private'] : flags.block.includes('none') ? [] : flags.block;
  return {
    args,
    env: Object.fromEntries(flags.env.map(parseEnv)),
    mounts: flags.dir.map((d, i) => parseDir(d, i === 0)),
    network: { allow: flags.allowHost, block },
    limits: {
      timeoutMs: positiveInt('--timeout', flags.timeout, DEFAULT_LIMITS.timeoutMs)!,
      fuel: positiveInt('--fuel', flags.fuel, DEFAULT_LIMITS.fuel),
      maxMemoryBytes: positiveInt('--max-memory', flags.maxMemory, DEFAULT_LIMITS.maxMemoryBytes / 1048576)! * 1048576,
      maxOutputBytes: positiveInt('--max-output', flags.maxOutput, DEFAULT_LIMITS.maxOutputBytes)!,
    },
  };
}

/** The JSON form of a result: bytes as UTF-8 text. */
export function resultToJson(r: SandboxResult): Record<string, unknown> {
  const dec = new TextDecoder();
  return {
    exitCode: r.exitCode,
    stdout: dec.decode(r.stdout),
    stderr: dec.decode(r.stderr),
    durationMs: Math.round(r.durationMs * 100) / 100,
    ...(r.trap ? { trap: r.trap } : {}),
  };
}

/**
 * Runs the call and writes the outcome; returns the process exit code. `sandbox.protect` keeps
 * boxbot's files out of --dir; `specCacheDir` holds the tool specs `--input` needs.
 */
export async function toolRun(
  file: string,
  args: string[],
  flags: ToolRunFlags,
  sandboxOpts: Pick<SandboxOptions, 'cacheDir' | 'protect'>,
  specCacheDir: string,
): Promise<number> {
  if (flags.format !== 'text' && flags.format !== 'json')
    throw new UsageError(`--format ${flags.format}: expected text or json`);
  const grant = grantFromFlags(flags, args);
  const input = flags.input === undefined ? undefined : parseInput(flags.input);
  const sandbox = createSandbox({ ...sandboxOpts, workers: 1 });
  try {
    if (input !== undefined) grant.args = await argvForInput(sandbox, resolve(file), input, specCacheDir);
    const result = await sandbox.run(resolve(file), grant);
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify(resultToJson(result))}\n`);
      return result.trap ? 1 : result.exitCode;
    }
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.trap) {
      process.stderr.write(`error: ${result.trap.kind}: ${result.trap.message}\n`);
      return 1;
    }
    return result.exitCode;
  } finally {
    await sandbox.close();
  }
}
