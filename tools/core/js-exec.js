// @ts-check
// `js_exec`: evaluates a JavaScript snippet in the component's own engine and returns its value
// and console output. Time and memory are the sandbox's limits (timeout, fuel, memory cap):
// an endless loop ends the call with a trap, and the next call starts from a fresh instance.
import { ToolError } from '../lib/cli.js';

const MAX_OUTPUT_CHARS = 100_000;

export const spec = {
  name: 'js_exec',
  version: '0.1.0',
  about: 'Evaluate a JavaScript snippet and return its result and console output',
  long: `Runs --code as a JavaScript (ES2023) script and returns what console.log/info/warn/error
printed, followed by the value of the last expression ("=> value"). Use it for calculations,
data transformation, parsing and quick experiments. Promises are awaited: to use \`await\`,
write the code as the body of an async function and \`return\` the result, e.g.
"const r = await Promise.resolve(6 * 7); return r;".

Each call starts from scratch: no state is kept between calls. There is no file system, network,
require() or process: only the standard library (Math, JSON, Date, RegExp, Intl, typed arrays,
TextEncoder, ...). Execution time and memory are limited; a script that runs too long (e.g.
an endless loop) is stopped and the call fails with the limit named. A thrown exception comes
back as an error with its message and stack.`,
  keywords: ['javascript', 'js', 'eval', 'execute', 'run', 'code', 'calculate', 'script', 'node'],
  // None: the sandbox mounts nothing for it, so "no file system" holds even for a snippet that
  // imports the WASI interfaces the engine itself carries.
  permission: 'None',
  options: [{ long: 'code', short: 'c', value: 'CODE', required: true, help: 'JavaScript source to evaluate' }],
};

/** A readable rendering of any value (like a console would show it). */
export function inspect(v, depth = 0, seen = new Set()) {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return depth ? JSON.stringify(v) : v;
    case 'number':
    case 'boolean':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint':
      return `${v}n`;
    case 'symbol':
      return v.toString();
    case 'function':
      return `[Function${v.name ? `: ${v.name}` : ' (anonymous)'}]`;
  }
  if (seen.has(v)) return '[Circular]';
  if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}`.trim() : `${v.name}: ${v.message}`;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (v instanceof RegExp) return String(v);
  if (depth > 4) return Array.isArray(v) ? '[Array]' : '[Object]';
  seen.add(v);
  try {
    const inner = (x) => inspect(x, depth + 1, seen);
    if (Array.isArray(v))
      return `[${v.slice(0, 200).map(inner).join(', ')}${v.length > 200 ? `, … ${v.length - 200} more` : ''}]`;
    if (v instanceof Map)
      return `Map(${v.size}) {${[...v]
        .slice(0, 100)
        .map(([k, x]) => `${inner(k)} => ${inner(x)}`)
        .join(', ')}}`;
    if (v instanceof Set) return `Set(${v.size}) {${[...v].slice(0, 100).map(inner).join(', ')}}`;
    if (ArrayBuffer.isView(v))
      return `${v.constructor.name}(${/** @type {any} */ (v).length ?? v.byteLength}) [${Array.from(
        /** @type {any} */ (v),
      )
        .slice(0, 100)
        .join(', ')}]`;
    if (typeof v.then === 'function') return 'Promise { <pending> }';
    const keys = Object.keys(v);
    const name = v.constructor && v.constructor !== Object ? `${v.constructor.name} ` : '';
    const body = keys
      .slice(0, 200)
      .map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${inner(v[k])}`);
    const more = keys.length > 200 ? `, … ${keys.length - 200} more` : '';
    return `${name}{${body.length ? ` ${body.join(', ')}${more} ` : ''}}`;
  } finally {
    seen.delete(v);
  }
}

/** The stack frames inside the snippet ("at <code>:line:column"); the tool's own are left out. */
function snippetFrames(stack) {
  const frames = String(stack ?? '')
    .split('\n')
    .map((l) => /^(.*?)@.*> (?:eval|Function|AsyncFunction):(\d+):(\d+)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => `    at ${m[1] || '<code>'} (<code>:${m[2]}:${m[3]})`);
  return frames.length ? `\n${frames.join('\n')}` : '';
}

/** A value as JSON metadata when it has a JSON form, else undefined. */
function jsonable(v) {
  try {
    const s = JSON.stringify(v);
    return s !== undefined && s.length <= 10_000 ? JSON.parse(s) : undefined;
  } catch {
    return undefined;
  }
}

/** @param {{ code: string }} v */
export function handler(v) {
  return evaluate(v.code);
}

/**
 * Runs `code` with console output captured and `globals` defined for it (a skill script's file helpers and
 * fetch). The engine's own fetch is removed unless `globals` brings one: a component without a network import
 * has none that works, and an absent fetch fails more clearly than one that fails oddly.
 * @param {string} code @param {Record<string, unknown>} [globals]
 */
export function evaluate(code, globals = {}) {
  /** @type {string[]} */
  const logs = [];
  let logChars = 0;
  const capture =
    (level) =>
    (...args) => {
      const tag = level === 'log' || level === 'info' || level === 'debug' ? '' : `[${level}] `;
      const line = `${tag}${args.map((a) => inspect(a)).join(' ')}`;
      if (logChars < MAX_OUTPUT_CHARS) logs.push(line);
      logChars += line.length + 1;
    };
  const fake = {
    log: capture('log'),
    info: capture('info'),
    debug: capture('debug'),
    warn: capture('warn'),
    error: capture('error'),
    trace: capture('trace'),
  };
  Object.defineProperty(globalThis, 'console', { value: fake, configurable: true, writable: true });
  delete (/** @type {any} */ (globalThis).fetch);
  for (const [name, value] of Object.entries(globals))
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true, enumerable: false });

  const finish = (value, failed) => {
    let text = logs.join('\n');
    if (logChars > MAX_OUTPUT_CHARS) text += `\n[console output cut: ${logChars - MAX_OUTPUT_CHARS} characters]`;
    if (failed) {
      const err =
        value instanceof Error
          ? `Uncaught ${value.name}: ${value.message}${snippetFrames(value.stack)}`
          : `Uncaught ${inspect(value, 1)}`;
      throw new ToolError(text ? `${text}\n${err}` : err, { console: logs.length, thrown: true });
    }
    const shown = inspect(value, value !== null && typeof value === 'object' ? 0 : 1);
    const result = text ? `${text}\n=> ${shown}` : `=> ${shown}`;
    const json = jsonable(value);
    return {
      content: result,
      metadata: {
        resultType: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value,
        ...(json !== undefined ? { result: json } : {}),
        consoleLines: logs.length,
      },
    };
  };

  let value;
  try {
    value = (0, eval)(code);
  } catch (e) {
    if (!(e instanceof SyntaxError) || !/await|return/.test(code)) return finish(e, true);
    // `await` or `return` at the top level: run the code as an async function body.
    try {
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
      value = new AsyncFunction(code)();
    } catch (e2) {
      return finish(e2, true);
    }
  }
  if (value && typeof value.then === 'function')
    return value.then(
      (x) => finish(x, false),
      (e) => finish(e, true),
    );
  return finish(value, false);
}
