// The tools of one session: registered WASM tools and built-in tools behind one interface.
// Permissions are enforced twice: `definitions()` lists only what the policy permits, and
// `call()` checks again before anything runs (a model can name any tool), then validates the
// input against the tool's schema, runs it and caps the result. Never throws for a tool failure.

import { errorMessage } from '../../errors.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import type { PermissionLevel } from '../tools/grants.ts';
import { grantFor, permits, type ToolPolicy } from '../tools/grants.ts';
import { invokeTool } from '../tools/invoke.ts';
import { capContent, DEFAULT_MAX_CONTENT_CHARS } from '../tools/output.ts';
import type { RegisteredTool } from '../tools/registry.ts';
import { checkInput, type JsonSchema } from '../tools/schema.ts';
import { createToolSearch, type SearchableTool } from '../tools/tool-search.ts';
import type { ToolDefinition } from '../types.ts';

/** One call the model asked for. */
export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

/** What a call returns to the model. */
export interface ToolCallOutcome {
  content: string;
  isError: boolean;
}

/** Where WASM tools come from (the registry; read each turn, so hot reloads apply). */
export interface WasmToolSource {
  list(): RegisteredTool[];
  get(name: string): RegisteredTool | undefined;
}

/** The tools a session may see and call. */
export interface ToolSet {
  /** What the model is shown this turn: permitted tools only. */
  definitions(): ToolDefinition[];
  /** Every tool this session may call (including ones not listed until found by ToolSearch). */
  permittedNames(): string[];
  /** The permission level of a tool, if it exists. */
  levelOf(name: string): PermissionLevel | undefined;
  /** Runs one call; refusals, bad input and failures come back as error results. */
  call(req: ToolCallRequest, signal: AbortSignal): Promise<ToolCallOutcome>;
  /**
   * A narrower set for a sub-agent: `names` ∩ this set's permitted tools (never more), with `builtins` replacing this
   * set's.
   */
  derive(names: string[], builtins: BuiltinTool[]): ToolSet;
}

/** Options of `createToolSet`. */
export interface ToolSetOptions {
  wasm: WasmToolSource;
  builtins: BuiltinTool[];
  policy: ToolPolicy;
  sandbox: Sandbox;
  /** Restricts the set to these names (a sub-agent's subset). */
  only?: ReadonlySet<string>;
  /** Cap on one result's characters (default 30,000). */
  maxResultChars?: number;
  /** With more permitted WASM tools than this, only built-ins, ToolSearch and found tools are listed (default 40). */
  maxListed?: number;
}

const searchable = (t: RegisteredTool): SearchableTool => ({
  name: t.spec.name,
  about: t.spec.about,
  longAbout: t.spec.longAbout,
  keywords: t.spec.keywords,
  permissionLevel: t.spec.permissionLevel,
  inputSchema: t.spec.inputSchema,
});

/** The input as an object, unchecked otherwise (a tool that checks its own input). */
function objectInput(input: unknown): { value: Record<string, unknown>; errors: string[] } {
  const v = input ?? {};
  return typeof v === 'object' && !Array.isArray(v)
    ? { value: v as Record<string, unknown>, errors: [] }
    : { value: {}, errors: ['input: expected a JSON object'] };
}

/** Creates the tool set of a session. */
export function createToolSet(opts: ToolSetOptions): ToolSet {
  const maxChars = opts.maxResultChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const maxListed = opts.maxListed ?? 40;
  const found = new Set<string>();
  const inSubset = (name: string) => !opts.only || opts.only.has(name);
  const builtins = new Map(opts.builtins.map((b) => [b.name, b]));

  const permittedWasm = (): RegisteredTool[] =>
    opts.wasm
      .list()
      .filter(
        (t) =>
          !builtins.has(t.spec.name) &&
          inSubset(t.spec.name) &&
          permits(opts.policy, t.spec.name, t.spec.permissionLevel).ok,
      );
  const permittedBuiltins = (): BuiltinTool[] =>
    opts.builtins.filter((b) => inSubset(b.name) && permits(opts.policy, b.name, b.permissionLevel).ok);
  const toolSearch = createToolSearch(
    () => permittedWasm().map(searchable),
    (names) => names.forEach((n) => found.add(n)),
  );
  const deferring = () => permittedWasm().length > maxListed;
  const lookup = (name: string): { builtin: BuiltinTool } | { wasm: RegisteredTool } | undefined => {
    const b = builtins.get(name) ?? (name === toolSearch.name && deferring() ? toolSearch : undefined);
    if (b) return { builtin: b };
    const w = opts.wasm.get(name);
    return w ? { wasm: w } : undefined;
  };

  const set: ToolSet = {
    definitions() {
      const wasm = permittedWasm();
      const defer = wasm.length > maxListed;
      const defs: ToolDefinition[] = permittedBuiltins().map((b) => ({
        name: b.name,
        description: b.description,
        inputSchema: b.inputSchema as Record<string, unknown>,
      }));
      if (defer)
        defs.push({
          name: toolSearch.name,
          description: toolSearch.description,
          inputSchema: toolSearch.inputSchema as Record<string, unknown>,
        });
      for (const t of wasm) {
        if (defer && !found.has(t.spec.name)) continue;
        defs.push({
          name: t.spec.name,
          description: [t.spec.about, t.spec.longAbout].filter(Boolean).join('\n\n'),
          inputSchema: t.spec.inputSchema as Record<string, unknown>,
        });
      }
      return defs;
    },
    permittedNames() {
      const names = [...permittedBuiltins().map((b) => b.name), ...permittedWasm().map((t) => t.spec.name)];
      if (deferring()) names.push(toolSearch.name);
      return names;
    },
    levelOf(name) {
      const t = lookup(name);
      if (!t) return undefined;
      return 'builtin' in t ? t.builtin.permissionLevel : t.wasm.spec.permissionLevel;
    },
    async call(req, signal) {
      const t = lookup(req.name);
      if (!t) {
        const names = set.permittedNames();
        return {
          content:
            `there is no tool named ${JSON.stringify(req.name)}; ` +
            `available: ${names.slice(0, 30).join(', ') || '(none)'}`,
          isError: true,
        };
      }
      if (!inSubset(req.name))
        return { content: `refused: ${req.name} is not among this sub-agent's tools`, isError: true };
      const level = 'builtin' in t ? t.builtin.permissionLevel : t.wasm.spec.permissionLevel;
      const allowed = permits(opts.policy, req.name, level);
      if (!allowed.ok) return { content: `refused: ${allowed.reason}`, isError: true };
      if ('wasm' in t) {
        const r = await invokeTool(
          opts.sandbox,
          t.wasm,
          req.input,
          grantFor(level, t.wasm.spec.network, opts.policy),
          maxChars,
          signal,
        );
        return { content: r.content, isError: r.isError };
      }
      const { value, errors } = t.builtin.checksOwnInput
        ? objectInput(req.input)
        : checkInput(req.input ?? {}, t.builtin.inputSchema as JsonSchema);
      if (errors.length) return { content: `invalid input for ${req.name}: ${errors.join('; ')}`, isError: true };
      try {
        const r = await t.builtin.run(value, { signal });
        return { content: capContent(r.content, maxChars).text, isError: r.isError };
      } catch (e) {
        if (signal.aborted) throw e;
        return { content: `${req.name} failed: ${errorMessage(e)}`, isError: true };
      }
    },
    derive(names, childBuiltins) {
      const mine = new Set(set.permittedNames());
      const only = new Set(names.filter((n) => mine.has(n)));
      return createToolSet({ ...opts, builtins: childBuiltins, only });
    },
  };
  return set;
}
