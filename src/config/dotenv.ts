// The `.env` file beside the config (written by `boxbot setup`, mode 0600): secrets for the
// environment, never for the config file. Read at every command's start; a variable the
// environment already sets wins over the file, as flag > environment > file everywhere else.
import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from './load.ts';

/** A `.env` over this is refused: it holds a few tokens, not data. */
const MAX_BYTES = 64 * 1024;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Names a `.env` may not set: they change how Node and every program boxbot starts (an MCP
 * server, a parser) load code or find files. They belong in the service's own environment.
 */
const PROCESS_NAMES = /^(NODE_.*|LD_.*|DYLD_.*|PATH|HOME|SHELL|TMPDIR|XDG_.*)$/;

/** Where the `.env` of a command lives: beside `configFile` when one is named, else in `cwd`. */
export function dotEnvPath(configFile: string | undefined, cwd = process.cwd()): string {
  return join(configFile ? dirname(resolve(cwd, configFile)) : cwd, '.env');
}

/** One value as written after `NAME=`: bare when safe, else double-quoted with escapes. */
function quote(value: string): string {
  if (/^[A-Za-z0-9_./:@+,=-]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/** The value part of a line (after `=`): quoted with escapes, single-quoted as is, or bare up to a ` #`. */
function unquote(raw: string, where: string): string {
  const v = raw.trim();
  if (v.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(v);
    if (!m) throw new ConfigError(`${where}: a double-quoted value with no closing quote`);
    return m[1]!.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
  }
  if (v.startsWith("'")) {
    const m = /^'([^']*)'\s*(?:#.*)?$/.exec(v);
    if (!m) throw new ConfigError(`${where}: a single-quoted value with no closing quote`);
    return m[1]!;
  }
  return v.replace(/\s+#.*$/, '');
}

/**
 * Parses `.env` text: `NAME=value` lines (an `export ` prefix is allowed), `#` comments and blank
 * lines. A line that is none of these is an error naming its number, never skipped in silence.
 */
export function parseDotEnv(text: string, file = '.env'): Map<string, string> {
  const out = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t || t.startsWith('#')) return;
    const where = `${file} line ${i + 1}`;
    const eq = t.indexOf('=');
    const name = (eq < 0 ? t : t.slice(0, eq)).replace(/^export\s+/, '').trim();
    if (eq < 0 || !NAME.test(name)) throw new ConfigError(`${where}: expected NAME=value`);
    if (PROCESS_NAMES.test(name))
      throw new ConfigError(`${where}: ${name} changes how programs start; set it in the environment, not in .env`);
    out.set(name, unquote(t.slice(eq + 1), where));
  });
  return out;
}

/** What loadDotEnv did: the names it set, and a warning for a file others can read. */
export interface DotEnvResult {
  file: string;
  loaded: string[];
  warning?: string;
}

/**
 * Reads `file` into `env`, leaving alone every variable `env` already has a value for; undefined
 * when there is no such file. The file is read through one descriptor (checked to be a regular
 * file under 64 KiB first), so what is checked is what is read.
 */
export function loadDotEnv(file: string, env: NodeJS.ProcessEnv = process.env): DotEnvResult | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let text: string;
  let mode: number;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(`${file} is not a regular file`);
    if (st.size > MAX_BYTES) throw new ConfigError(`${file} is ${st.size} bytes; a .env over 64 KiB is refused`);
    mode = st.mode & 0o777;
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const loaded: string[] = [];
  for (const [name, value] of parseDotEnv(text, file)) {
    if (env[name]) continue;
    env[name] = value;
    loaded.push(name);
  }
  const warning =
    mode & 0o077
      ? `${file} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 ${file}`
      : undefined;
  return { file, loaded, ...(warning ? { warning } : {}) };
}

/**
 * Sets `values` in the `.env` at `file`: lines of other names, comments and order are kept, a
 * name already there gets its new value in place, new names go at the end. Written to a temp
 * file created with mode 0600 and renamed over, so the secrets are never readable by others,
 * not even for a moment, and a crash leaves the old file or the new one.
 */
export function writeDotEnv(file: string, values: Readonly<Record<string, string>>): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const left = new Map(Object.entries(values));
  lines = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (!name || !left.has(name)) return line;
    const value = left.get(name)!;
    left.delete(name);
    return `${name}=${quote(value)}`;
  });
  for (const [name, value] of left) lines.push(`${name}=${quote(value)}`);
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, `${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
}
