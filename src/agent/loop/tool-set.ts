// The tools of one session: registered WASM tools and built-in tools behind one interface.
// Permissions are enforced twice: `definitions()` lists only what the policy permits, and
// `call()` checks again before anything runs (a model can name any tool), then validates the
// input against the tool's schema, runs it and caps the result. Never throws for a tool failure.

import { errorMessage } from '../../core/errors.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import {
  type ApprovalAnswer,
  type ApprovalGate,
  approvalReasons,
  createApprovalGate,
  permitsWithApproval,
} from '../tools/approvals.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import type { PermissionLevel } from '../tools/grants.ts';
import { grantFor, type HostToolGrant, type ToolPolicy, withHostGrant } from '../tools/grants.ts';
import { invokeTool, type ToolCallGrant } from '../tools/invoke.ts';
import { capContent, DEFAULT_MAX_CONTENT_CHARS } from '../tools/output.ts';
import type { RegisteredTool } from '../tools/registry.ts';
import { checkInput, type JsonSchema } from '../tools/schema.ts';
import { createToolSearch, type SearchableTool } from '../tools/tool-search.ts';
import { HOST_GRANTED_TOOLS } from '../tools/web-search-grant.ts';
import type { ResultSource, ToolDefinition } from '../types.ts';

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
  /** Where it came from beyond the tool's name (stored with the result; absent: the host's own words). */
  source?: Omit<ResultSource, 'tool'>;
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
  /**
   * Whether results of the tool named so may hold outside content (it declares network hosts, it
   * is an MCP server's, or it is no longer known): such results always record their source.
   */
  mayBringOutside(name: string): boolean;
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
  /** The run's approval gate (default: the policy's rules with nobody to ask). Derived sets share it. */
  gate?: ApprovalGate;
  /** What the run's workspace holds that it cannot trust, and who to tell before a call may write there. */
  workspace?: WorkspaceTrust;
  /** The host's own grants by tool name (the configured search service): hosts and keys the policy does not give. */
  hostGrants?: Readonly<Record<string, HostToolGrant>>;
}

/** The workspace as far as taint goes (the runner knows who put what there; the tool set does not). */
export interface WorkspaceTrust {
  /** Set when its files are not all the requester's own: every call that gets the folder reads them. */
  untrusted?: string;
  /** Called before a call that may write there runs; `tainted`: the run has read untrusted content. */
  writing?: (tainted: boolean) => Promise<void>;
}

/** A short description of one call for people (`web_fetch(url="https://example.com")`). */
export function describeCall(name: string, input: unknown): string {
  if (!input || typeof input !== 'object') return `${name}()`;
  const parts = Object.entries(input as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .slice(0, 3)
    .map(([k, v]) => `${k}=${JSON.stringify(typeof v === 'string' && v.length > 80 ? `${v.slice(0, 79)}…` : v)}`);
  return `${name}(${parts.join(', ')})`;
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

/** What a call would get, as the approval question shows it: a WASM tool's grant, or what a built-in says. */
function reachOf(
  t: { builtin: BuiltinTool } | { wasm: RegisteredTool },
  grant: ToolCallGrant | undefined,
  input: unknown,
): { folders: { path: string; readOnly: boolean }[]; hosts: string[] } {
  if (grant)
    return { folders: grant.mounts.map((m) => ({ path: m.host, readOnly: m.readOnly })), hosts: grant.network.allow };
  if ('builtin' in t && t.builtin.reach) return t.builtin.reach(objectInput(input).value);
  return { folders: [], hosts: [] };
}

/** Creates the tool set of a session. */
export function createToolSet(opts: ToolSetOptions): ToolSet {
  const maxChars = opts.maxResultChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const maxListed = opts.maxListed ?? 40;
  const found = new Set<string>();
  const inSubset = (name: string) => !opts.only || opts.only.has(name);
  const builtins = new Map(opts.builtins.map((b) => [b.name, b]));
  const gate = opts.gate ?? createApprovalGate(opts.policy.approvals, undefined);
  const allows = (name: string, level: PermissionLevel) =>
    permitsWithApproval(opts.policy, opts.policy.approvals, name, level);

  // A bundled tool that works only with the host's grant is not there at all without one (web_search with no
  // service configured): the model is not offered a tool whose every call would fail.
  const present = (t: RegisteredTool): boolean =>
    t.source !== 'bundled' || !HOST_GRANTED_TOOLS.has(t.spec.name) || hostGrantOf(t.spec.name) !== undefined;
  const permittedWasm = (): RegisteredTool[] =>
    opts.wasm
      .list()
      .filter(
        (t) =>
          present(t) &&
          !builtins.has(t.spec.name) &&
          inSubset(t.spec.name) &&
          allows(t.spec.name, t.spec.permissionLevel).ok,
      );
  const permittedBuiltins = (): BuiltinTool[] =>
    opts.builtins.filter((b) => inSubset(b.name) && allows(b.name, b.permissionLevel).ok);
  const toolSearch = createToolSearch(
    () => permittedWasm().map(searchable),
    (names) => names.forEach((n) => found.add(n)),
  );
  const deferring = () => permittedWasm().length > maxListed;
  const lookup = (name: string): { builtin: BuiltinTool } | { wasm: RegisteredTool } | undefined => {
    const b = builtins.get(name) ?? (name === toolSearch.name && deferring() ? toolSearch : undefined);
    if (b) return { builtin: b };
    const w = opts.wasm.get(name);
    return w && present(w) ? { wasm: w } : undefined;
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
    mayBringOutside(name) {
      const t = lookup(name);
      if (!t) return true;
      return 'builtin' in t ? t.builtin.mcpServer !== undefined : t.wasm.spec.network.length > 0;
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
      const allowed = allows(req.name, level);
      if (!allowed.ok) return { content: `refused: ${allowed.reason}`, isError: true };
      const grant =
        'wasm' in t
          ? withHostGrant(grantFor(level, t.wasm.spec.network, opts.policy), hostGrantOf(req.name))
          : undefined;
      const reasons = approvalReasons(
        opts.policy.approvals,
        req.name,
        level,
        allowed.escalation,
        gate.untrusted.length > 0,
      );
      let answer: Extract<ApprovalAnswer, { approved: true }> | undefined;
      if (reasons.length) {
        if (!gate.ask) return { content: `refused: ${req.name} was not run: ${gate.nobodyToAsk}`, isError: true };
        const decided = await gate.ask(
          {
            tool: req.name,
            input: req.input,
            level,
            ...reachOf(t, grant, req.input),
            reasons,
            untrusted: [...gate.untrusted],
          },
          signal,
        );
        if (!decided.approved) return { content: `refused: ${decided.reason}`, isError: true };
        // A replayed result keeps the source journaled with it; one journaled without (by an older
        // boxbot) of a tool that may bring outside content counts as untrusted.
        const replay = decided.replay;
        if (replay)
          return taken(
            replay.source || !set.mayBringOutside(req.name)
              ? replay
              : { ...replay, source: { untrusted: `the result of ${describeCall(req.name, req.input)}` } },
          );
        answer = decided;
      }
      const outcome = taken(await runCall(t, req, grant, signal));
      // An approved call's result is journaled, so a run again after a restart replays it instead of running it twice.
      await answer?.ran?.(outcome);
      return outcome;
    },
    derive(names, childBuiltins) {
      const mine = new Set(set.permittedNames());
      const only = new Set(names.filter((n) => mine.has(n)));
      return createToolSet({ ...opts, builtins: childBuiltins, only, gate });
    },
  };

  /** The host's grant of a bundled tool; an extension shadowing the name gets none. */
  function hostGrantOf(name: string): HostToolGrant | undefined {
    const g = opts.hostGrants && Object.hasOwn(opts.hostGrants, name) ? opts.hostGrants[name] : undefined;
    return g && opts.wasm.get(name)?.source === 'bundled' ? g : undefined;
  }

  /** Records what untrusted content the outcome holds in the run's gate (later calls then need approval). */
  function taken(outcome: ToolCallOutcome): ToolCallOutcome {
    if (outcome.source?.untrusted) gate.tookIn(outcome.source.untrusted);
    return outcome;
  }

  async function runCall(
    t: { builtin: BuiltinTool } | { wasm: RegisteredTool },
    req: ToolCallRequest,
    grant: ReturnType<typeof grantFor> | undefined,
    signal: AbortSignal,
  ): Promise<ToolCallOutcome> {
    if ('wasm' in t && grant) {
      // Recorded before it runs: a crash after the write must not leave it unrecorded.
      if (grant.mounts.some((m) => !m.readOnly)) await opts.workspace?.writing?.(gate.untrusted.length > 0);
      const r = await invokeTool(opts.sandbox, t.wasm, req.input, grant, maxChars, signal);
      const network = grant.network.allow.length > 0;
      // What came over the network is content the run cannot trust (policy `approvals.afterUntrusted`),
      // and so are files in the folder someone else put there: which ones the call read, the
      // sandbox does not say, so any call that got the folder counts.
      const untrusted = [
        ...(network ? [`the result of ${describeCall(req.name, req.input)}`] : []),
        ...(grant.mounts.length && opts.workspace?.untrusted ? [opts.workspace.untrusted] : []),
      ].join('; ');
      // A tool that could reach the network but got no host this time still says where it came from.
      if (!untrusted && !t.wasm.spec.network.length) return { content: r.content, isError: r.isError };
      return {
        content: r.content,
        isError: r.isError,
        source: { ...(network ? { network: true as const } : {}), ...(untrusted ? { untrusted } : {}) },
      };
    }
    if (!('builtin' in t)) throw new Error(`no grant for ${req.name}`);
    const { value, errors } = t.builtin.checksOwnInput
      ? objectInput(req.input)
      : checkInput(req.input ?? {}, t.builtin.inputSchema as JsonSchema);
    if (errors.length) return { content: `invalid input for ${req.name}: ${errors.join('; ')}`, isError: true };
    const mcp = t.builtin.mcpServer;
    // An MCP server's answer is never the host's words, whatever the tool says of it.
    const untrusted = (r: { untrusted?: string }) =>
      r.untrusted ?? (mcp ? `a result of ${req.name} (MCP server "${mcp}")` : undefined);
    if (t.builtin.writesWorkspace) await opts.workspace?.writing?.(gate.untrusted.length > 0);
    try {
      const r = await t.builtin.run(value, { signal, untrusted: gate.untrusted });
      const why = untrusted(r);
      const source = { ...(mcp ? { mcp } : {}), ...(why ? { untrusted: why } : {}) };
      return {
        content: capContent(r.content, maxChars).text,
        isError: r.isError,
        ...(Object.keys(source).length ? { source } : {}),
      };
    } catch (e) {
      if (signal.aborted) throw e;
      const why = untrusted({});
      return {
        content: `${req.name} failed: ${errorMessage(e)}`,
        isError: true,
        ...(mcp ? { source: { mcp, ...(why ? { untrusted: why } : {}) } } : {}),
      };
    }
  }
  return set;
}
