// Builds a ToolSpec from a .wasm file: runs its `-h` and `--help` in the sandbox (no mounts,
// no network), decodes and parses both, merges them, and refuses a component whose imports
// exceed what it declares. Missing `PermissionLevel:` is read as the strictest, `Execute`.
import { BoxbotError, errorMessage } from '../../core/errors.ts';
import { DEFAULT_LIMITS, type Sandbox, type SandboxResult } from '../../sandbox/index.ts';
import { parseHostPatterns } from '../../sandbox/net/host-pattern.ts';
import { decodeText } from './decode.ts';
import type { PermissionLevel } from './grants.ts';
import { type HelpCommand, HelpError, type HelpParam, mergeHelp, type ParsedHelp, parseHelp } from './help-parse.ts';
import { inputSchemaOf, type JsonSchema } from './schema.ts';

/** Bumped whenever parsing changes, so cached specs are rebuilt. */
export const SPEC_VERSION = 4;

/** Everything the registry knows about one tool (README, "Add a tool"). */
export interface ToolSpec {
  /** The first word of its help's first line (clap, argparse and cobra print it); else `program`. */
  name: string;
  /** What its calls run as (argv[0]): the file's name, which a component shared by several tools dispatches on. */
  program: string;
  version: string;
  about: string;
  longAbout: string;
  keywords: string[];
  permissionLevel: PermissionLevel;
  /**
   * Hosts the tool declares it needs (`*` = whatever the policy allows; also for a tool importing wasi:http without a
   * Network: line).
   */
  network: string[];
  inputSchema: JsonSchema;
  commands: HelpCommand[];
  /** Where it was found. */
  file: string;
  sha256: string;
  /** How input maps to argv. */
  params: HelpParam[];
  /** The component's WASI imports. */
  imports: string[];
  /** Things worth knowing that did not refuse the tool (e.g. no PermissionLevel declared). */
  notes: string[];
}

/** A tool was refused at registration; the message says why. */
export class ToolRefusedError extends BoxbotError<'tool-refused'> {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super('tool-refused', message);
  }
}

/** Tool names the model APIs accept. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

// Help should be instant; the limit is generous so a loaded machine does not refuse a good tool.
const HELP_LIMITS = { ...DEFAULT_LIMITS, timeoutMs: 30_000, maxOutputBytes: 256 * 1024 };

/** Interfaces the sandbox provides; anything else cannot be satisfied. */
const PROVIDED = /^wasi:(cli|clocks|random|io|filesystem|http|sockets)\//;

/** Checks the component's imports against what the help declares; returns the refusal reason. */
export function importsExceedDeclaration(
  imports: string[],
  _level: PermissionLevel,
  network: string[],
): string | undefined {
  for (const name of imports) {
    const bare = name.replace(/@.*$/, '');
    if (!PROVIDED.test(bare)) return `it imports ${name}, which the sandbox does not provide`;
    // wasi:http without Network: is allowed (see undeclaredHttp); sockets are never granted, so a
    // tool that needs them and says nothing about the network is refused up front.
    if (bare.startsWith('wasi:sockets/') && network.length === 0)
      return `it imports ${bare} but declares no Network: hosts`;
    // wasi:filesystem is not checked against the level: every toolchain here (componentize-js,
    // the preview1 adapter) imports it, and a None tool's grant has no mounts, so no file exists for it.
  }
  return undefined;
}

/**
 * Whether the tool imports wasi:http without declaring Network: hosts. Toolchains pull the import
 * in (a Rust/clap tool with an HTTP client it rarely uses), so such a tool registers, and its
 * network is whatever the conversation's policy allows: `*`, intersected with network.allow
 * (empty by default) when a call is granted.
 */
const undeclaredHttp = (imports: string[], network: string[]) =>
  network.length === 0 && imports.some((i) => i.startsWith('wasi:http/'));

/** `-h: why; --help: why`, or one reason for both when they failed the same way. */
function sameReasons(reasons: { flag: string; why: string }[]): string {
  const [a, b] = reasons;
  if (a && b && a.why === b.why) return `\`${a.flag}\` and \`${b.flag}\`: ${a.why}`;
  return reasons.map((r) => `\`${r.flag}\`: ${r.why}`).join('; ');
}

function isHostPattern(p: string): boolean {
  try {
    parseHostPatterns([p]);
    return true;
  } catch {
    return false;
  }
}

async function helpText(
  sandbox: Sandbox,
  file: string,
  name: string,
  flag: string,
): Promise<{ text?: string; why?: string }> {
  let r: SandboxResult;
  try {
    r = await sandbox.run(
      file,
      { args: [flag], env: {}, mounts: [], network: { allow: [], block: ['private'] }, limits: HELP_LIMITS },
      { name },
    );
  } catch (e) {
    return { why: `it cannot run: ${errorMessage(e)}` };
  }
  if (r.trap) return { why: `stopped by the ${r.trap.kind} limit (${r.trap.message})` };
  const text = decodeText(r.stdout.length ? r.stdout : r.stderr).text;
  if (!text.trim()) return { why: `printed nothing (exit code ${r.exitCode})` };
  return { text };
}

/**
 * Runs the help of `file` (as `program`, its file's name) and builds its spec; throws
 * ToolRefusedError with the reason. The tool is named by its help's first line when that names it.
 */
export async function buildSpec(
  sandbox: Sandbox,
  file: string,
  program: string,
  sha256: string,
  imports: string[],
  sourceFile = file,
): Promise<ToolSpec> {
  const reasons: { flag: string; why: string }[] = [];
  const parse = (flag: string, h: { text?: string; why?: string }): ParsedHelp | undefined => {
    if (h.text === undefined) {
      reasons.push({ flag, why: h.why! });
      return undefined;
    }
    try {
      return parseHelp(h.text);
    } catch (e) {
      if (!(e instanceof HelpError)) throw e;
      reasons.push({ flag, why: e.message });
      return undefined;
    }
  };
  const short = parse('-h', await helpText(sandbox, file, program, '-h'));
  const long = parse('--help', await helpText(sandbox, file, program, '--help'));
  if (!short && !long) throw new ToolRefusedError(sourceFile, `${sourceFile} refused: ${sameReasons(reasons)}`);
  const help = mergeHelp(short, long);
  const badHost = help.network.find((h) => h !== '*' && !isHostPattern(h));
  if (badHost !== undefined) {
    throw new ToolRefusedError(
      sourceFile,
      `${sourceFile} refused: Network: ${JSON.stringify(badHost)} is not a host pattern (expected e.g. ` +
        `https://api.example.com or https://*.example.com)`,
    );
  }
  const notes: string[] = [];
  let name = program;
  if (help.name !== undefined && TOOL_NAME.test(help.name)) name = help.name;
  else if (help.name !== undefined)
    notes.push(
      `its help names it ${JSON.stringify(help.name)}, which is not a tool name the model APIs accept, so it is ` +
        `named after its file`,
    );
  if (!TOOL_NAME.test(name))
    throw new ToolRefusedError(
      sourceFile,
      `${sourceFile}: the tool name ${JSON.stringify(name)} must be 1-64 letters, digits, _ or -`,
    );
  const permissionLevel = help.permissionLevel ?? 'Execute';
  if (!help.permissionLevel) notes.push('no PermissionLevel: declared, so it is treated as Execute');
  const refusal = importsExceedDeclaration(imports, permissionLevel, help.network);
  if (refusal) throw new ToolRefusedError(sourceFile, `${sourceFile} refused: ${refusal}`);
  let network = help.network;
  if (undeclaredHttp(imports, network)) {
    network = ['*'];
    notes.push(
      "it imports wasi:http but prints no Network: line, so it may reach only the hosts the conversation's policy " +
        'allows (network.allow, empty by default)',
    );
  }
  return {
    name,
    program,
    version: help.version ?? '0.0.0',
    about: help.about || help.longAbout.split('\n')[0] || name,
    longAbout: help.longAbout,
    keywords: help.keywords,
    permissionLevel,
    network,
    inputSchema: inputSchemaOf(help.params, help.commands),
    commands: help.commands,
    file: sourceFile,
    sha256,
    params: help.params,
    imports,
    notes,
  };
}
