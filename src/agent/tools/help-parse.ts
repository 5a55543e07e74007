// Turns a help text (clap 4, argparse, cobra) into the tool's parameters, commands and
// declarations. Types come from value names and hints (`<NUMBER>`, `int`, `[default: 3]`,
// `[possible values: a, b]`); what the text does not say is left out rather than guessed.
import { BoxbotError } from '../../core/errors.ts';
import { PERMISSION_LEVELS, type PermissionLevel } from './grants.ts';
import { type HelpItem, layoutOf, looksLikeHelp } from './help-layout.ts';
import { applyUsage, positionalsFromUsage } from './help-usage.ts';

/** One input of a tool: an option (`--file-path <FILE_PATH>`) or a positional argument. */
export interface HelpParam {
  /** The JSON input name: `--file-path` → `file_path`, `<PATTERN>` → `pattern`. */
  key: string;
  kind: 'option' | 'positional';
  /** The flag to pass (`--file-path`, or `-n` when there is no long form). */
  flag?: string;
  /** The value placeholder (`FILE_PATH`); absent for a flag that takes no value. */
  valueName?: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  required: boolean;
  multiple: boolean;
  default?: string;
  enum?: string[];
  description: string;
}

/** A subcommand listed under `Commands:`. */
export interface HelpCommand {
  name: string;
  about: string;
}

/** Everything one help text says. */
export interface ParsedHelp {
  name?: string;
  version?: string;
  about: string;
  longAbout: string;
  keywords: string[];
  permissionLevel?: PermissionLevel;
  network: string[];
  usage: string[];
  params: HelpParam[];
  commands: HelpCommand[];
}

/** The text is not a help text (or declares something impossible). */
export class HelpError extends BoxbotError<'bad-help'> {
  constructor(message: string) {
    super('bad-help', message);
  }
}

const INTEGER_WORDS = new RegExp(
  '^(n|num|number|int|integer|count|limit|offset|lines?|bytes|size|port|depth|max|min|seconds|secs|ms|millis|' +
    'timeout|retries|jobs|threads|width|height|index|level|[ui](8|16|32|64|128|size))$' +
    '|_(count|num|number|limit|size|bytes|lines|ms|secs|seconds)$|^(num|max|min)_',
  'i',
);
const NUMBER_WORDS = /^(float|f32|f64|decimal|double|ratio|fraction|temperature|rate|percent)$/i;
const BOOLEAN_WORDS = /^(bool|boolean)$/i;
const COBRA_TYPES: Record<string, { type: HelpParam['type']; multiple: boolean }> = {
  string: { type: 'string', multiple: false },
  int: { type: 'integer', multiple: false },
  int32: { type: 'integer', multiple: false },
  int64: { type: 'integer', multiple: false },
  uint: { type: 'integer', multiple: false },
  uint32: { type: 'integer', multiple: false },
  uint64: { type: 'integer', multiple: false },
  float32: { type: 'number', multiple: false },
  float64: { type: 'number', multiple: false },
  duration: { type: 'string', multiple: false },
  strings: { type: 'string', multiple: true },
  stringSlice: { type: 'string', multiple: true },
  stringArray: { type: 'string', multiple: true },
  ints: { type: 'integer', multiple: true },
  intSlice: { type: 'integer', multiple: true },
  bools: { type: 'boolean', multiple: true },
};

const toKey = (s: string) =>
  s
    .replace(/^-+/, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();

/**
 * Pulls `[default: x]`, `(default: x)`, `(default "x")`, `[possible values: a, b]` and the long list form out of a
 * description.
 */
function hints(lines: string[]): { description: string; default?: string; enum?: string[]; required: boolean } {
  let text = lines.join('\n');
  let dflt: string | undefined;
  let values: string[] | undefined;
  let required = false;
  text = text.replace(
    /\[default:\s*([^\]]*)\]|\(default:?\s*("([^"]*)"|[^)]*)\)/gi,
    (_m, clap, cobraAll, cobraQuoted) => {
      dflt = (clap ?? cobraQuoted ?? cobraAll ?? '').trim();
      return '';
    },
  );
  text = text.replace(/\[possible values:\s*([^\]]*)\]/i, (_m, list: string) => {
    values = list
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    return '';
  });
  // clap's long help: "Possible values:" followed by "- name: description" lines.
  const longList = /possible values:\s*\n((?:\s*- [^\n]*\n?)+)/i.exec(text);
  if (longList) {
    values = [...longList[1]!.matchAll(/- ([^:\n]+?)(?::|\n|$)/g)].map((m) => m[1]!.trim());
  }
  // Hints that mean nothing to a sandboxed tool's caller (it gets no environment; aliases are
  // other spellings of the same flag).
  text = text.replace(/\s*\[(env|aliases|alias|short aliases|short alias):[^\]]*\]/gi, '');
  text = text.replace(/\s*[([]required[)\]]/i, () => {
    required = true;
    return '';
  });
  const description = text
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return {
    description,
    ...(dflt !== undefined && dflt !== '' ? { default: dflt } : {}),
    ...(values ? { enum: values } : {}),
    required,
  };
}

function typeFromName(valueName: string | undefined): { type: HelpParam['type']; multiple: boolean } | undefined {
  if (valueName === undefined) return undefined;
  const cobra = COBRA_TYPES[valueName];
  if (cobra) return cobra;
  if (BOOLEAN_WORDS.test(valueName)) return { type: 'boolean', multiple: false };
  if (NUMBER_WORDS.test(valueName)) return { type: 'number', multiple: false };
  if (INTEGER_WORDS.test(valueName)) return { type: 'integer', multiple: false };
  return undefined;
}

const GENERIC_NUMBER = /^(n|num|number)$/i;
const INTEGER_TEXT = /^-?\d+$/;
const FLOAT_TEXT = /^-?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Settles integer vs number: a generic `<NUMBER>` is an integer only when its default or its
 * name says so (`--offset <NUMBER> [default: 0]`), and a fractional default makes any numeric
 * value a number (`--delay <SECONDS> [default: 0.5]`).
 */
function numberKind(
  byName: ReturnType<typeof typeFromName>,
  valueName: string | undefined,
  key: string,
  dflt: string | undefined,
): ReturnType<typeof typeFromName> {
  if (!byName || (byName.type !== 'integer' && byName.type !== 'number')) return byName;
  if (dflt !== undefined && FLOAT_TEXT.test(dflt)) return { ...byName, type: 'number' };
  if (valueName !== undefined && GENERIC_NUMBER.test(valueName)) {
    const integer = (dflt !== undefined && INTEGER_TEXT.test(dflt)) || INTEGER_WORDS.test(key);
    return { ...byName, type: integer ? 'integer' : 'number' };
  }
  return byName;
}

/** `-f, --file-path <FILE_PATH>` / `-f FOO, --foo FOO` / `--mode {a,b}` / `-c, --config string`. */
function parseOption(item: HelpItem): HelpParam | undefined {
  let long: string | undefined;
  let short: string | undefined;
  let valuePart: string | undefined;
  for (const alias of item.left.split(/,\s+/)) {
    const m = /^(--?[A-Za-z0-9?@][\w-]*(?:\.[\w-]+)*)(\.\.\.)?(\[?[= ].*)?$/.exec(alias.trim());
    if (!m) continue;
    if (m[1]!.startsWith('--')) long ??= m[1];
    else short ??= m[1];
    if (m[3]) valuePart ??= m[3].replace(/^\[?[= ]/, '').trim();
  }
  const flag = long ?? short;
  if (!flag) return undefined;
  if (['--help', '--version'].includes(long ?? '') || (!long && ['-h', '-V'].includes(short ?? ''))) return undefined;
  const h = hints(item.description);
  let multiple = false;
  let valueName: string | undefined;
  let choices: string[] | undefined;
  if (valuePart) {
    multiple = /\.\.\.|\[[^\]]*\s\.\.\.\]/.test(valuePart);
    const brace = /^\{([^}]*)\}/.exec(valuePart);
    if (brace) {
      choices = brace[1]!.split(',').map((v) => v.trim());
      valueName = toKey(long ?? short!).toUpperCase();
    } else {
      valueName =
        valuePart
          .replace(/\.\.\.|[<>[\]]/g, ' ')
          .trim()
          .split(/\s+/)[0] || undefined;
    }
  }
  const byName = numberKind(typeFromName(valueName), valueName, toKey(long ?? short!), h.default);
  let type: HelpParam['type'] = valuePart === undefined ? 'boolean' : (byName?.type ?? 'string');
  if (byName?.multiple) multiple = true;
  const values = choices ?? h.enum;
  if (valuePart !== undefined && !byName && values?.every((v) => v === 'true' || v === 'false')) type = 'boolean';
  if (
    valuePart !== undefined &&
    !byName &&
    !values &&
    h.default !== undefined &&
    /^-?\d+$/.test(h.default) &&
    !/path|file|dir|name|url|str|text/i.test(valueName ?? '')
  ) {
    type = 'integer';
  }
  return {
    key: toKey(long ?? short!),
    kind: 'option',
    flag,
    ...(valueName ? { valueName } : {}),
    type,
    required: h.required,
    multiple,
    ...(h.default !== undefined ? { default: h.default } : {}),
    ...(values && type !== 'boolean' ? { enum: values } : {}),
    description: h.description,
  };
}

/** A description as one line, without hints. */
const oneLine = (lines: string[]) => hints(lines).description.replace(/\s*\n\s*/g, ' ');

/**
 * argparse's subparsers: a `{add,list}` positional followed by one indented line per command.
 * Returns the commands, or undefined when the item is a plain choice argument.
 */
function subparsers(item: HelpItem): HelpCommand[] | undefined {
  const choices = /^\{([^}]+)\}$/
    .exec(item.left.trim())?.[1]
    ?.split(',')
    .map((c) => c.trim());
  if (!choices) return undefined;
  const commands: HelpCommand[] = [];
  for (const line of item.description) {
    const m = /^(\S+)(?:\s{2,}(.*))?$/.exec(line.trim());
    if (m && choices.includes(m[1]!)) commands.push({ name: m[1]!, about: m[2]?.trim() ?? '' });
    else if (commands.length && line.trim()) commands[commands.length - 1]!.about += ` ${line.trim()}`;
  }
  return commands.length ? commands : undefined;
}

/** `<FILE>`, `[PATTERN]...`, argparse's `bar` or `{a,b}`. */
function parseArgument(item: HelpItem): HelpParam | undefined {
  const m = /^(<([^>]+)>|\[([^\]]+)\]|\{([^}]+)\}|([A-Za-z0-9_][\w.-]*))(\.\.\.)?$/.exec(item.left.trim());
  if (!m) return undefined;
  const name = (m[2] ?? m[3] ?? m[5] ?? 'choice').replace(/[<>]/g, '');
  const h = hints(item.description);
  const byName = typeFromName(name);
  return {
    key: toKey(name),
    kind: 'positional',
    valueName: name.toUpperCase(),
    type: byName?.type === 'boolean' ? 'string' : (byName?.type ?? 'string'),
    required: m[3] === undefined,
    multiple: m[6] !== undefined,
    ...(h.default !== undefined ? { default: h.default } : {}),
    ...(m[4] ? { enum: m[4].split(',').map((v) => v.trim()) } : h.enum ? { enum: h.enum } : {}),
    description: h.description,
  };
}

/** Parses `Keywords:`/`PermissionLevel:`/`Network:` declarations. */
function declarations(meta: Record<string, string>): Pick<ParsedHelp, 'keywords' | 'permissionLevel' | 'network'> {
  const keywords = (meta.keywords ?? '')
    .split(/[,\s]+/)
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  const network = (meta.network ?? '')
    .split(/[,\s]+/)
    .map((h) => h.trim())
    .filter(Boolean);
  const raw = meta.permissionlevel;
  let permissionLevel: PermissionLevel | undefined;
  if (raw !== undefined) {
    const found = PERMISSION_LEVELS.find((l) => l.toLowerCase() === raw.replace(/[\s_-]/g, '').toLowerCase());
    if (!found)
      throw new HelpError(`PermissionLevel: ${JSON.stringify(raw)} is not one of ${PERMISSION_LEVELS.join(', ')}`);
    permissionLevel = found;
  }
  return { keywords, network, ...(permissionLevel ? { permissionLevel } : {}) };
}

/** Parses one help text; throws HelpError when it is not help. */
export function parseHelp(text: string): ParsedHelp {
  if (!text.trim()) throw new HelpError('the help output is empty');
  if (!looksLikeHelp(text)) {
    const first = text.trim().split('\n')[0]!.slice(0, 80);
    throw new HelpError(
      `the output is not help: it has no Usage:, Options:, Arguments: or Commands: section (it starts ` +
        `with ${JSON.stringify(first)})`,
    );
  }
  const layout = layoutOf(text);
  const header = layout.header.map((p) => [...p]);
  let name: string | undefined;
  let version: string | undefined;
  const nameLine = header[0]?.[0] !== undefined ? /^([A-Za-z0-9][\w.-]*)\s+v?(\d[\w.+-]*)$/.exec(header[0][0]) : null;
  if (nameLine) {
    name = nameLine[1];
    version = nameLine[2];
    header[0]!.shift();
    if (!header[0]!.length) header.shift();
  }
  const about = header[0]?.[0] ?? '';
  const rest = [header[0]?.slice(1).join(' ') ?? '', ...header.slice(1).map((p) => p.join('\n'))].filter(Boolean);
  const params: HelpParam[] = [];
  const commands: HelpCommand[] = [];
  const extra: string[] = [];
  for (const s of layout.sections) {
    if (s.kind === 'options') for (const it of s.items) pushParam(params, parseOption(it));
    else if (s.kind === 'arguments') {
      for (const it of s.items) {
        const sub = subparsers(it);
        if (sub) commands.push(...sub);
        else pushParam(params, parseArgument(it));
      }
    } else if (s.kind === 'commands') {
      for (const it of s.items) {
        const cmd = it.left.split(/[,\s]/)[0]!;
        if (cmd === 'help' || cmd === 'completion') continue;
        commands.push({ name: cmd, about: oneLine(it.description) });
      }
    } else if (s.text.some((t) => t)) extra.push(`${s.title}:\n${s.text.join('\n').trim()}`);
  }
  // cobra names positional arguments only in its usage line (`deploy <service> [env] [flags]`).
  if (!layout.sections.some((s) => s.kind === 'arguments')) {
    for (const p of positionalsFromUsage(layout.usage, params)) pushParam(params, p);
  }
  applyUsage(params, layout.usage);
  return {
    ...(name ? { name } : {}),
    ...(version ? { version } : {}),
    about,
    longAbout: [...rest, ...extra].join('\n\n').trim(),
    ...declarations(layout.meta),
    usage: layout.usage,
    params,
    commands,
  };
}

function pushParam(params: HelpParam[], p: HelpParam | undefined): void {
  if (!p) return;
  const clash = params.find((q) => q.key === p.key);
  if (clash && clash.kind === p.kind) return; // the same option listed under two headings
  if (clash) p.key = `${p.key}_${p.kind === 'positional' ? 'arg' : 'opt'}`;
  params.push(p);
}

/** Merges `-h` and `--help`: long help wins on descriptions, either may add parameters. */
export function mergeHelp(short: ParsedHelp | undefined, long: ParsedHelp | undefined): ParsedHelp {
  if (!short) return long!;
  if (!long) return short;
  const params = long.params.map((p) => {
    const s = short.params.find((q) => q.key === p.key);
    if (!s) return p;
    return {
      ...s,
      ...p,
      description: p.description || s.description,
      required: p.required || s.required,
      ...((p.default ?? s.default) ? { default: p.default ?? s.default } : {}),
      ...((p.enum ?? s.enum) ? { enum: p.enum ?? s.enum } : {}),
    };
  });
  for (const s of short.params) if (!params.some((p) => p.key === s.key)) params.push(s);
  const commands = [...long.commands];
  for (const c of short.commands) if (!commands.some((d) => d.name === c.name)) commands.push(c);
  return {
    ...short,
    ...long,
    about: short.about || long.about,
    longAbout: long.longAbout || short.longAbout,
    keywords: long.keywords.length ? long.keywords : short.keywords,
    network: long.network.length ? long.network : short.network,
    ...((long.permissionLevel ?? short.permissionLevel)
      ? { permissionLevel: long.permissionLevel ?? short.permissionLevel }
      : {}),
    usage: long.usage.length ? long.usage : short.usage,
    params,
    commands,
  };
}
