// @ts-check
// The command-line convention every bundled tool follows (shared/design.md, "Tools describe
// themselves"): help printed in clap's layout from one spec, argv parsed against the same spec,
// and results written as the JSON output convention {error, content, metadata}.
import { getArguments } from 'wasi:cli/environment@0.2.12';
import { getStderr } from 'wasi:cli/stderr@0.2.12';
import { getStdout } from 'wasi:cli/stdout@0.2.12';

/**
 * @typedef {{ long: string, short?: string, value?: string, help: string, longHelp?: string,
 *   required?: boolean, default?: string, values?: string[], multiple?: boolean,
 *   type?: 'string' | 'number' | 'boolean' }} OptionSpec
 *   An option; without `value` it is a boolean flag. `type` defaults to string (number if the
 *   value name is NUMBER/N/COUNT…). Its key in the parsed result is `long` in snake_case.
 * @typedef {{ name: string, help: string, required?: boolean, multiple?: boolean }} ArgSpec
 *   A positional argument (`name` in SCREAMING_CASE, key in the result is lower case).
 * @typedef {{ name: string, version: string, about: string, long?: string, keywords: string[],
 *   permission: 'None' | 'ReadOnly' | 'Write' | 'Execute', network?: string[],
 *   args?: ArgSpec[], options: OptionSpec[] }} ToolSpec
 */

const enc = new TextEncoder();

/** Writes bytes to a WASI output stream, in chunks the stream accepts. */
function writeAll(stream, bytes) {
  for (let at = 0; at < bytes.length; at += 4096) {
    stream.blockingWriteAndFlush(bytes.subarray(at, Math.min(at + 4096, bytes.length)));
  }
}

/** Writes text to stdout (no newline added). */
export const stdout = (text) => writeAll(getStdout(), typeof text === 'string' ? enc.encode(text) : text);
/** Writes text to stderr (no newline added). */
export const stderr = (text) => writeAll(getStderr(), typeof text === 'string' ? enc.encode(text) : text);

/** A failure the tool reports as its result (`{error: true}`), not a crash. */
export class ToolError extends Error {
  /** @param {string} message @param {Record<string, unknown>} [metadata] */
  constructor(message, metadata = {}) {
    super(message);
    this.metadata = metadata;
  }
}

/** A bad command line: printed to stderr with a usage hint; the tool exits non-zero. */
export class UsageError extends Error {}

const snake = (s) => s.replace(/-/g, '_');
const optType = (o) =>
  o.type ??
  (o.value
    ? /^(NUMBER|N|NUM|COUNT|LINES|BYTES|INT|INTEGER|LIMIT|OFFSET|DEPTH)$/.test(o.value)
      ? 'number'
      : 'string'
    : 'boolean');

/** The usage line: `Usage: name [OPTIONS] --req <REQ> <ARG> [OPT]...` */
function usage(spec) {
  const parts = [`Usage: ${spec.name}`];
  if (spec.options.some((o) => !o.required)) parts.push('[OPTIONS]');
  for (const o of spec.options.filter((o) => o.required)) parts.push(`--${o.long} <${o.value}>`);
  for (const a of spec.args ?? [])
    parts.push(`${a.required ? `<${a.name}>` : `[${a.name}]`}${a.multiple ? '...' : ''}`);
  return parts.join(' ');
}

/** Help text; `long` (for --help) adds the long description and long option help. */
export function helpText(spec, long) {
  const lines = [`${spec.name} ${spec.version}`, spec.about, ''];
  if (long && spec.long) lines.push(spec.long.trim(), '');
  lines.push(`Keywords: ${spec.keywords.join(',')}`, `PermissionLevel: ${spec.permission}`);
  if (spec.network?.length) lines.push(`Network: ${spec.network.join(', ')}`);
  lines.push('', usage(spec), '');
  const rows = (items) => {
    const width = Math.max(...items.map(([l]) => l.length)) + 2;
    for (const [left, text] of items) {
      const [first = '', ...rest] = text.split('\n');
      lines.push(`  ${left.padEnd(width)}${first}`.trimEnd());
      for (const r of rest) lines.push(`  ${' '.repeat(width)}${r}`.trimEnd());
    }
    lines.push('');
  };
  if (spec.args?.length) {
    lines.push('Arguments:');
    rows(spec.args.map((a) => [`${a.required ? `<${a.name}>` : `[${a.name}]`}${a.multiple ? '...' : ''}`, a.help]));
  }
  lines.push('Options:');
  const opts = spec.options.map((o) => {
    const value = o.value ? ` <${o.value}>${o.multiple ? '...' : ''}` : '';
    const left = `${o.short ? `-${o.short}, ` : '    '}--${o.long}${value}`;
    let text = (long && o.longHelp) || o.help;
    if (o.default !== undefined) text += ` [default: ${o.default}]`;
    if (o.values) text += ` [possible values: ${o.values.join(', ')}]`;
    return [left, text];
  });
  opts.push(['-h, --help', long ? "Print help (see a summary with '-h')" : "Print help (see more with '--help')"]);
  opts.push(['-V, --version', 'Print version']);
  rows(opts);
  return lines.join('\n').replace(/\n+$/, '\n');
}

/**
 * Parses argv (without argv[0]) against the spec. Returns the values keyed by snake_case name,
 * or null when help/version was printed.
 * @returns {Record<string, any> | null}
 */
export function parseArgs(spec, argv) {
  /** @type {Record<string, any>} */
  const out = {};
  const positionals = [];
  const byLong = new Map(spec.options.map((o) => [o.long, o]));
  const byShort = new Map(spec.options.filter((o) => o.short).map((o) => [o.short, o]));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      stdout(helpText(spec, a === '--help'));
      return null;
    }
    if (a === '-V' || a === '--version') {
      stdout(`${spec.name} ${spec.version}\n`);
      return null;
    }
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let opt;
    let inline;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
      if (eq !== -1) inline = a.slice(eq + 1);
      opt = byLong.get(name);
      if (!opt) throw new UsageError(`unexpected argument '${a}' found`);
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      opt = byShort.get(a.slice(1, 2));
      if (!opt) throw new UsageError(`unexpected argument '${a}' found`);
      if (a.length > 2) inline = a.slice(2);
    } else {
      positionals.push(a);
      continue;
    }
    const key = snake(opt.long);
    const type = optType(opt);
    let value;
    if (type === 'boolean') {
      if (inline !== undefined)
        throw new UsageError(`unexpected value '${inline}' for '--${opt.long}' found; no more were expected`);
      value = true;
    } else {
      value = inline ?? argv[++i];
      if (value === undefined)
        throw new UsageError(`a value is required for '--${opt.long} <${opt.value}>' but none was supplied`);
      if (type === 'number') {
        const n = Number(value);
        if (!Number.isFinite(n))
          throw new UsageError(`invalid value '${value}' for '--${opt.long} <${opt.value}>': expected a number`);
        value = n;
      }
      if (opt.values && !opt.values.includes(String(value))) {
        throw new UsageError(
          `invalid value '${value}' for '--${opt.long} <${opt.value}>' [possible values: ${opt.values.join(', ')}]`,
        );
      }
    }
    if (opt.multiple) (out[key] ??= []).push(value);
    else out[key] = value;
  }
  for (const o of spec.options) {
    const key = snake(o.long);
    if (out[key] === undefined && o.default !== undefined)
      out[key] = optType(o) === 'number' ? Number(o.default) : o.default;
    if (out[key] === undefined && o.required)
      throw new UsageError(`the following required arguments were not provided: --${o.long} <${o.value}>`);
  }
  const args = spec.args ?? [];
  for (const a of args) {
    const key = a.name.toLowerCase();
    if (a.multiple) out[key] = positionals.splice(0);
    else if (positionals.length) out[key] = positionals.shift();
    if ((out[key] === undefined || (a.multiple && !out[key].length)) && a.required) {
      throw new UsageError(`the following required arguments were not provided: <${a.name}>`);
    }
  }
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}' found`);
  return out;
}

/** Prints the JSON result convention. */
export function emit(result) {
  stdout(`${JSON.stringify({ error: !!result.error, content: result.content, metadata: result.metadata ?? {} })}\n`);
}

/**
 * Runs a tool: parses argv against `spec`, calls `handler(values)`, prints its result. The
 * handler may return a promise (componentize-js runs the event loop until it settles).
 * A ToolError becomes `{error: true}`; any other exception too, as an internal error naming
 * the tool; a UsageError goes to stderr. Each of them fails the run (non-zero exit).
 * @param {ToolSpec} spec
 * @param {(values: Record<string, any>) => Result | string | Promise<Result | string>} handler
 * @param {string[]} [argv] arguments after argv[0]; default: the process's
 * @returns {void | Promise<void>}
 * @typedef {{ content: string, metadata?: Record<string, unknown> }} Result
 */
export function runTool(spec, handler, argv = getArguments().slice(1)) {
  let values;
  try {
    values = parseArgs(spec, argv);
  } catch (e) {
    if (e instanceof UsageError) {
      stderr(`error: ${e.message}\n\n${usage(spec)}\n\nFor more information, try '--help'.\n`);
      throw new Error('usage');
    }
    throw e;
  }
  if (values === null) return;
  const done = (r) => emit(typeof r === 'string' ? { content: r } : r);
  const failed = (e) => {
    if (e instanceof ToolError) emit({ error: true, content: e.message, metadata: e.metadata });
    else
      emit({
        error: true,
        content: `${spec.name}: internal error: ${e instanceof Error ? e.message : String(e)}`,
        metadata: { internal: true },
      });
    throw new Error(e instanceof ToolError ? 'tool error' : 'internal error');
  };
  let r;
  try {
    r = handler(values);
  } catch (e) {
    return failed(e);
  }
  if (r && typeof (/** @type {any} */ (r).then) === 'function')
    return /** @type {Promise<any>} */ (r).then(done, failed);
  done(r);
}

/**
 * The guest entry for a component holding several tools: dispatches on argv[0] (the name the
 * host runs it under).
 * @param {Record<string, { spec: ToolSpec, handler: Function }>} tools
 */
export function multiCall(tools) {
  return {
    run() {
      const [argv0 = '', ...rest] = getArguments();
      const name = argv0.replace(/^.*\//, '').replace(/\.wasm$/, '');
      const tool = tools[name];
      if (!tool) {
        stderr(`error: this component provides ${Object.keys(tools).join(', ')}; it was run as '${name}'\n`);
        throw new Error('unknown tool');
      }
      return runTool(tool.spec, /** @type {any} */ (tool.handler), rest);
    },
  };
}
