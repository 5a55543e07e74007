// The config file `boxbot setup` writes: a new one is the commented starter with the chosen
// model; an existing one gets its top-level "model" set by an edit of that one value, so its
// comments and layout stay, and the edit is kept only if the file then reads as before plus it.
import { isDeepStrictEqual } from 'node:util';
import { stripJsonComments } from '../config/jsonc.ts';
import { starterConfig } from './starter-config.ts';

/** The starter config (as `boxbot init` writes it) with `"model": spec` in place of its commented example. */
export function newConfigText(schemaPath: string, spec: string): string {
  return starterConfig(schemaPath).replace(/^ {2}\/\/ "model": .*$/m, `  "model": ${JSON.stringify(spec)},`);
}

/** The document `text` holds (JSONC), or undefined when it is not one object. */
function read(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(stripJsonComments(text)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `text` (an existing JSONC config) with its top-level `"model"` set to `spec`: the value replaced
 * where the key is, else the key added first in the object. Undefined when no edit gives exactly
 * the old document with that one change (then the caller says which line to add by hand).
 */
export function withModel(text: string, spec: string): string | undefined {
  const before = read(text);
  if (!before) return undefined;
  if (before.model === spec) return text;
  const wanted = { ...before, model: spec };
  const value = JSON.stringify(spec);
  const candidates: string[] = [];
  for (const m of text.matchAll(/"model"(\s*:\s*)"(?:[^"\\\n]|\\.)*"/g))
    candidates.push(`${text.slice(0, m.index)}"model"${m[1]}${value}${text.slice(m.index + m[0].length)}`);
  const open = text.indexOf('{');
  if (open >= 0) candidates.push(`${text.slice(0, open + 1)}\n  "model": ${value},${text.slice(open + 1)}`);
  // Key order differs when the key was added: compare as sets of entries.
  return candidates.find((c) => {
    const after = read(c);
    return after !== undefined && isDeepStrictEqual(after, wanted);
  });
}
