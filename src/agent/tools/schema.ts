// A tool's JSON Schema (what the model sees) from its parsed help, and the check of a model's
// input against it: every error names the field and what was expected.
import type { HelpCommand, HelpParam } from './help-parse.ts';

/** The JSON Schema subset boxbot generates and checks. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: (string | number)[];
  default?: unknown;
  additionalProperties?: boolean;
}

function typedValue(type: HelpParam['type'], text: string): unknown {
  if (type === 'integer' || type === 'number') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
  }
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : undefined;
  return text;
}

/** The default in the schema's type; a repeated option's default is a list (cobra: `[80,443]`). */
function typedDefault(p: HelpParam): unknown {
  if (p.default === undefined) return undefined;
  if (!p.multiple) return typedValue(p.type, p.default);
  const list = /^\[(.*)\]$/.exec(p.default.trim());
  const items = list
    ? list[1]!
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [p.default];
  const typed = items.map((v) => typedValue(p.type, v));
  return typed.every((v) => v !== undefined) ? typed : undefined;
}

/** The schema of one parameter. */
function paramSchema(p: HelpParam): JsonSchema {
  const base: JsonSchema = { type: p.type };
  if (p.enum && p.type !== 'boolean') base.enum = p.type === 'string' ? p.enum : p.enum.map(Number);
  const dflt = typedDefault(p);
  const described: JsonSchema = p.description ? { description: p.description } : {};
  if (p.multiple) return { ...described, type: 'array', items: base, ...(dflt !== undefined ? { default: dflt } : {}) };
  return { ...described, ...base, ...(dflt !== undefined ? { default: dflt } : {}) };
}

/** Builds the input schema; a tool with subcommands gets `command` (enum) and `args`. */
export function inputSchemaOf(params: HelpParam[], commands: HelpCommand[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (commands.length) {
    properties.command = {
      type: 'string',
      enum: commands.map((c) => c.name),
      description: commands.map((c) => `${c.name}: ${c.about}`).join('\n'),
    };
    properties.args = {
      type: 'array',
      items: { type: 'string' },
      description: 'Arguments and options for the command, as on a command line',
    };
    required.push('command');
  }
  for (const p of params) {
    properties[p.key] = paramSchema(p);
    if (p.required) required.push(p.key);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

const describe = (v: unknown) =>
  Array.isArray(v)
    ? 'an array'
    : v === null
      ? 'null'
      : typeof v === 'string'
        ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`
        : `${typeof v} ${JSON.stringify(v)}`;

/** Checks one value; numeric strings are accepted for numbers (models often quote them). */
function checkValue(path: string, v: unknown, s: JsonSchema, errors: string[]): unknown {
  switch (s.type) {
    case 'array': {
      const list = Array.isArray(v) ? v : [v];
      return list.map((item, i) => checkValue(`${path}[${i}]`, item, s.items ?? {}, errors));
    }
    case 'integer':
    case 'number': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n) || (s.type === 'integer' && !Number.isInteger(n))) {
        errors.push(`${path}: expected ${s.type === 'integer' ? 'an integer' : 'a number'}, got ${describe(v)}`);
        return v;
      }
      if (s.enum && !s.enum.includes(n)) errors.push(`${path}: expected one of ${s.enum.join(', ')}, got ${n}`);
      return n;
    }
    case 'boolean':
      if (v === 'true' || v === 'false') return v === 'true';
      if (typeof v !== 'boolean') errors.push(`${path}: expected true or false, got ${describe(v)}`);
      return v;
    case 'string':
      if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
      if (typeof v !== 'string') {
        errors.push(`${path}: expected a string, got ${describe(v)}`);
        return v;
      }
      if (s.enum && !s.enum.includes(v))
        errors.push(`${path}: expected one of ${s.enum.join(', ')}, got ${describe(v)}`);
      return v;
    default:
      return v;
  }
}

/** Validates (and lightly normalises) an input; returns the errors, each naming its field. */
export function checkInput(input: unknown, schema: JsonSchema): { value: Record<string, unknown>; errors: string[] } {
  const errors: string[] = [];
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { value: {}, errors: [`input: expected a JSON object, got ${describe(input)}`] };
  }
  const value: Record<string, unknown> = {};
  const props = schema.properties ?? {};
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    const s = props[k];
    if (!s) {
      errors.push(`${k}: unknown field; expected one of ${Object.keys(props).join(', ') || '(no fields)'}`);
      continue;
    }
    if (v === null || v === undefined) continue;
    value[k] = checkValue(k, v, s, errors);
  }
  for (const k of schema.required ?? []) {
    if (value[k] === undefined && !errors.some((e) => e.startsWith(`${k}:`)))
      errors.push(`${k}: required field is missing`);
  }
  return { value, errors };
}
