// What a help text's usage line says beyond its sections: which options are required (in every
// alternative form), which argparse positionals are optional or repeated, and cobra's
// positional arguments, which appear nowhere else.
import type { HelpParam } from './help-parse.ts';

/**
 * Groups usage lines into alternative forms: a line starting with the program's name begins a
 * new form (clap's `       prog --list`, cobra's `  prog [command]`); any other line continues
 * the previous one (argparse wraps long usage under the name).
 */
export function usageForms(usage: string[]): string[] {
  const prog = usage[0]?.split(/\s+/)[0];
  const forms: string[] = [];
  for (const line of usage) {
    if (!forms.length || line.split(/\s+/)[0] === prog) forms.push(line);
    else forms[forms.length - 1] += ` ${line}`;
  }
  return forms;
}

/** Strips bracketed groups (nested) from a usage line, leaving what is required. */
function requiredPart(usage: string): string {
  let out = '';
  let depth = 0;
  for (const ch of usage) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Applies what the usage says: required options, optional/multiple argparse positionals. */
export function applyUsage(params: HelpParam[], usage: string[]): void {
  const line = usage.join(' ');
  if (!line) return;
  // An option is required only when every form of the usage requires it.
  const required = usageForms(usage).map(requiredPart);
  for (const p of params) {
    if (p.kind === 'option' && p.flag) {
      const flag = new RegExp(`(^|\\s)${escape(p.flag)}(?=[\\s=<]|$)`);
      if (required.every((req) => flag.test(req))) p.required = true;
    }
    if (p.kind === 'positional' && /^[a-z]/.test(p.key)) {
      const bare = escape(p.valueName?.toLowerCase() ?? p.key);
      if (new RegExp(`\\[${bare}( \\.\\.\\.)?\\]`, 'i').test(line)) p.required = false;
      if (new RegExp(`${bare} \\[${bare} \\.\\.\\.\\]|\\[${bare} \\.\\.\\.\\]`, 'i').test(line)) p.multiple = true;
    }
  }
}

/** Splits a usage form at spaces outside brackets: `[--mode {a,b}]` stays one group. */
function groups(form: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (const ch of form) {
    if ('[<{('.includes(ch)) depth++;
    else if (']>})'.includes(ch)) depth = Math.max(0, depth - 1);
    if (/\s/.test(ch) && depth === 0) {
      if (cur) out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (cur) out.push(cur);
  return out;
}

const NOT_ARGUMENTS = /^(flags|global flags|options|option|command|commands|subcommand|args|arguments)$/i;

/** Positional arguments named only in the usage (`<service>` required, `[env]` optional). */
export function positionalsFromUsage(usage: string[], known: HelpParam[]): HelpParam[] {
  const form = usageForms(usage)[0];
  if (!form) return [];
  const out: HelpParam[] = [];
  const parts = groups(form).slice(1);
  // Skip the subcommand path (`cloudctl deploy <service>`): bare words before the first group.
  while (parts[0] !== undefined && /^[a-z][\w-]*$/i.test(parts[0])) parts.shift();
  for (let i = 0; i < parts.length; i++) {
    const g = parts[i]!;
    if (g.startsWith('-')) {
      // An option written out in the usage: its value (`<X>`, `X`) is not an argument.
      const next = parts[i + 1];
      if (next !== undefined && (/^<[^>]+>$/.test(next) || /^[A-Z][A-Z0-9_]*$/.test(next))) i++;
      continue;
    }
    const m = /^(?:<([A-Za-z][\w-]*)>|\[<?([A-Za-z][\w-]*)>?(\.\.\.)?\])(\.\.\.)?$/.exec(g);
    if (!m) continue;
    const name = m[1] ?? m[2]!;
    if (NOT_ARGUMENTS.test(name)) continue;
    const key = name.replace(/[^A-Za-z0-9]+/g, '_').toLowerCase();
    if (known.some((p) => p.key === key) || out.some((p) => p.key === key)) continue;
    out.push({
      key,
      kind: 'positional',
      valueName: name.toUpperCase(),
      type: 'string',
      required: m[1] !== undefined,
      multiple: !!(m[3] ?? m[4]),
      description: '',
    });
  }
  return out;
}
