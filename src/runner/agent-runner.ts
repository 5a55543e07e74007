// The agent as the gateway runs it: loads the conversation's history from the store, gives the
// run its workspace and the policy's grants, maps the loop's events to status lines and text
// deltas, saves the history, and turns every outcome into words a user understands. Files the
// run attaches with `send_file` come back with the answer (the gateway sends them after its text).
// It implements the runner's port (runner/ports.ts) that the gateway drives; main.ts hands it to
// the gateway.

import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { userKeyOf } from '../adapters/index.ts';
import { estimateTokens } from '../agent/loop/compaction.ts';
import { RESERVED_OUTPUT_TOKENS } from '../agent/loop/run-loop.ts';
import { SUMMARY_MARK, summarizeHistory } from '../agent/loop/summarize.ts';
import type { AgentEvent, AgentResult } from '../agent/loop/types.ts';
import type { McpHub } from '../agent/mcp/hub.ts';
import { type AttachedFile, createSendFileTool, SEND_FILE } from '../agent/media/send-file-tool.ts';
import {
  createMemoryTools,
  type MemoryView,
  memoryDigest,
  untrustedNotes,
  visibleMemories,
} from '../agent/memory/index.ts';
import { type RunSlot, supportsVision, withSlotReleased } from '../agent/providers/index.ts';
import {
  type AgentDeps,
  type AgentPolicy,
  approvalToolNames,
  knownToolName,
  offeredToolNames,
  outsideToolsOf,
  runAgent,
} from '../agent/run-agent.ts';
import type { BuiltinTool } from '../agent/tools/builtin.ts';
import { permits } from '../agent/tools/grants.ts';
import type { Message } from '../agent/types.ts';
import { createWorkspaceRecords, recordUploads, workspaceTrust } from '../agent/workspace-record.ts';
import { redactLine } from '../config/env.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { RUN_ERROR_PREFIX } from '../core/message.ts';
import type { SandboxLimits } from '../sandbox/index.ts';
import { encodeName, type Store, StoreCorruptError } from '../store/index.ts';
import { toAgentPolicy } from './agent-policy.ts';
import { type BudgetRule, budgetHooks, channelSubjects, createBudgetRule, spaceOf } from './budget-rule.ts';
import { checklistLines } from './checklist.ts';
import { createDailySpend, type DailySpend, utcDay } from './daily-spend.ts';
import { mediaInput, transcriptNote, withoutImages } from './media-input.ts';
import type { Persist } from './persist.ts';
import { type PolicyLimits, type ResolvedPolicy, withModelChoice } from './policy.ts';
import type { AgentRunner, AgentRunReply, AgentRunRequest, GatewayAgentEvent, UsageView } from './ports.ts';
import { GatewayStoppingError } from './ports.ts';
import { usd } from './usd.ts';

/** What the runner is wired to. */
export interface AgentRunnerOptions {
  store: Store;
  /**
   * The process's daily-spend ledger, shared with the scheduler so each counts the other's
   * charges not yet written (main passes one); default: a ledger of the runner's own.
   */
  spend?: DailySpend;
  deps: AgentDeps;
  /** Conversation workspaces live under this folder, one per key. */
  workspacesDir: string;
  sandbox: { block: string[]; limits: SandboxLimits };
  /** Secret values (secretValues() of the config's secrets): never shown in a chat. */
  secretValues?: string[];
  /** Set when no model provider is usable: every message gets this hint instead of a run. */
  unavailableHint?: string;
  /**
   * The built-in tools of one run, bound to the message's conversation, user and policy (e.g. the
   * scheduler's `schedule`, whose jobs carry the policy): the one place a gateway run gets them.
   */
  builtinsFor?: (ctx: ToolContext) => BuiltinTool[];
  /** Largest file `send_file` sends (media.maxFileMb); default 20 MiB. */
  maxFileBytes?: number;
  /** MCP servers: the policy's `mcp` servers' tools join each run's built-ins (filtered like any tool). */
  mcp?: Pick<McpHub, 'toolsFor' | 'cachedToolsFor'>;
  /** Long-term memory: each run gets the memory tools and a digest of at most `digestChars` in its prompt. */
  memory?: { digestChars: number };
  /** Per-run limits. */
  timeoutMs?: number;
  maxTurns?: number;
  /**
   * Counts tool calls by tool and result (the gateway's metrics fit); a name no tool has (one the
   * model made up) is counted as `unknown`, so the series stay as few as the tools.
   */
  metrics?: { toolCalls: { inc(labels: { tool: string; result: 'started' | 'ok' | 'error' }): void } };
  log?: Logger;
  /** The clock (tests): usage days and budgets. */
  now?: () => number;
  /** More `provider/model`s that take images (config `media.visionModels`). */
  visionModels?: string[];
}

/**
 * A history message; a turn's input carries the id of the inbound message it came from, and its
 * sender; a summary of earlier turns carries the senders of the turns it replaced.
 */
type TaggedMessage = Message & { inboundId?: string; userId?: string; authors?: string[] };

/** A user message that starts a turn (not one carrying tool results). */
const isInput = (m: Message): boolean => m.role === 'user' && !m.content.some((p) => p.type === 'tool-result');

/** Whose words a turn-starting message holds, as far as the history says. */
const authorsOf = (m: Message): string[] => {
  const t = m as TaggedMessage;
  return t.authors ?? (t.userId !== undefined ? [t.userId] : []);
};

/**
 * Tags a summary that replaced turns of `before` (a run's or /compact's) with their senders: the
 * words of other users it retells stay untrusted content for later runs (approvals.afterUntrusted).
 */
function keepAuthors(after: Message[], before: Message[], requesterId?: string): Message[] {
  const head = after[0] as TaggedMessage | undefined;
  const isSummary = head?.content[0]?.type === 'text' && head.content[0].text.startsWith(SUMMARY_MARK);
  if (!head || !isInput(head) || !isSummary || head.authors) return after;
  const authors = new Set(before.filter(isInput).flatMap(authorsOf));
  if (requesterId !== undefined) authors.add(requesterId);
  return authors.size ? [{ ...head, authors: [...authors] } as TaggedMessage, ...after.slice(1)] : after;
}

/** How a summary stored before summaries recorded their taint is named: it may retell anything. */
export const UNRECORDED_SUMMARY = 'a summary saved before boxbot recorded what summaries retell';

/**
 * A summary an older boxbot stored: tagged with its authors (as every summary this runner saves)
 * but without the taint summaries now always carry.
 */
const isUnrecordedSummary = (m: Message): boolean => (m as TaggedMessage).authors !== undefined && !m.untrusted;

/** Tags the run's input (the last turn-starting message with that text) with the inbound id and sender. */
function tagTurn(messages: Message[], input: string, inboundId: string, userId: string): Message[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (isInput(m) && m.content.some((p) => p.type === 'text' && p.text === input)) {
      const out = [...messages];
      out[i] = { ...m, inboundId, userId } as TaggedMessage;
      return out;
    }
  }
  return messages;
}

/**
 * `history` without its last turn when that turn was started by `inboundId`: an edited or
 * regenerated message (InboundMessage.replacesTurn) runs in its place, and the history saved after
 * it holds the new turn instead (the old answer goes). Else `history` as it is.
 */
function withoutLastTurn(history: Message[], inboundId: string | undefined): Message[] {
  if (inboundId === undefined) return history;
  const last = history.findLastIndex(isInput);
  return last >= 0 && (history[last] as TaggedMessage).inboundId === inboundId ? history.slice(0, last) : history;
}

/** The final answer of the turn started by `inboundId`, if that turn is in the history. */
function answerInHistory(history: Message[], inboundId: string): string | undefined {
  const start = history.findIndex((m) => (m as TaggedMessage).inboundId === inboundId);
  if (start < 0) return undefined;
  let answer: string | undefined;
  for (let i = start + 1; i < history.length && !isInput(history[i]!); i++) {
    const m = history[i]!;
    if (m.role === 'assistant') answer = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  }
  return answer;
}

/** The inputs of the turn's send_file calls that succeeded, in order (its files, to attach again on a replay). */
function filesInHistory(history: Message[], inboundId: string): Record<string, unknown>[] {
  const start = history.findIndex((m) => (m as TaggedMessage).inboundId === inboundId);
  if (start < 0) return [];
  const calls: { id: string; input: Record<string, unknown> }[] = [];
  const attached = new Set<string>();
  for (let i = start + 1; i < history.length && !isInput(history[i]!); i++) {
    for (const p of history[i]!.content) {
      if (p.type === 'tool-call' && p.name === SEND_FILE && typeof p.input === 'object' && p.input !== null)
        calls.push({ id: p.id, input: p.input as Record<string, unknown> });
      if (p.type === 'tool-result' && p.name === SEND_FILE && !p.isError) attached.add(p.id);
    }
  }
  return calls.filter((c) => attached.has(c.id)).map((c) => c.input);
}

/** Whether `path` is a folder (or a link to one) now; false for anything else, an error included. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** The message a run answers. */
type InboundMessage = AgentRunRequest['message'];

/** What tools bound to one message know about it. */
export interface ToolContext {
  conversationKey: string;
  userId: string;
  /** Who is speaking: the signed-in identity of a web chat browser, else the platform user. */
  userKey: string;
  policy: PolicyLimits;
}

/** Largest file `send_file` sends unless configured (media.maxFileMb's default). */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/** A store write tried once (when the caller gives no retry). */
const once: Persist = (_what, write) => write();

/** The runner's workspace for a conversation (created on first use). */
export function workspaceOf(workspacesDir: string, conversationKey: string): string {
  return join(workspacesDir, encodeName(conversationKey));
}

/**
 * The words of a run's outcome after what the run said (`text`): `why` a budget stopped it (else
 * its own budget did), the error a failed run reports (already redacted).
 */
export function outcomeText(outcome: AgentResult['outcome'], text: string, o: { why?: string; error: string }): string {
  const after = (note: string) => `${text ? `${text}\n\n` : ''}${note}`;
  switch (outcome) {
    case 'final':
      return text;
    case 'cancelled':
      return text ? `${text}\n\n(stopped)` : 'Stopped.';
    case 'timeout':
      return after('(I ran out of time for this one; ask me to continue.)');
    case 'max-turns':
      return after('(I stopped after too many steps; ask me to continue.)');
    case 'max-tokens':
      return `${text}\n\n(The answer was cut off.)`;
    case 'budget-exceeded':
      return after(o.why ? `(Stopped: ${o.why}. /usage shows the figures.)` : "(Stopped: this run's budget is spent.)");
    case 'error':
      return `${RUN_ERROR_PREFIX}${o.error}`;
    default: {
      // Every outcome of the loop has words here: a new one fails the typecheck, not a user.
      const unhandled: never = outcome;
      throw new Error(`unhandled run outcome ${String(unhandled)}`);
    }
  }
}

/**
 * Runs the `send_file` calls of a replayed turn again, if the conversation's policy as the config
 * says now still lets an answer send files; returns a line per file that could not be attached.
 */
async function attachAgain(
  tool: BuiltinTool,
  policy: ResolvedPolicy,
  inputs: Record<string, unknown>[],
  signal: AbortSignal,
): Promise<string> {
  const allowed = permits(policy, tool.name, tool.permissionLevel);
  let missing = '';
  for (const input of inputs) {
    if (!allowed.ok) {
      missing += `\n\n(I could not attach again ${String(input.path ?? '')}: ${allowed.reason}.)`;
      continue;
    }
    const r = await tool.run(input, { signal });
    if (r.isError) missing += `\n\n(${r.content.replace(/^cannot send/, 'I could not attach again')}.)`;
  }
  return missing;
}

/** Whose notes a message's run sees and saves: its conversation's, as its sender. */
const memoryView = (m: InboundMessage): MemoryView => ({
  conversationKey: m.conversationKey,
  userKey: userKeyOf(m),
});

/**
 * The notes for this message's prompt, and why the run cannot trust them, if it cannot: another
 * user saved one (the conversation's notes are everyone's: their words are as untrusted as that
 * user's messages), or a run saved one after it had read untrusted content.
 * A store that fails costs the digest, never the answer.
 */
async function memoriesFor(
  store: Pick<Store, 'memories'>,
  m: InboundMessage,
  digestChars: number,
  log: Logger,
): Promise<{ digest?: string; untrusted?: string }> {
  try {
    const view = memoryView(m);
    const notes = await visibleMemories(store.memories, view);
    const digest = memoryDigest(notes, m.text, digestChars);
    if (!digest) return {};
    const untrusted = untrustedNotes(
      notes.filter((n) => digest.includes(`[${n.id}]`)),
      view,
    );
    return { digest, ...(untrusted ? { untrusted } : {}) };
  } catch (e) {
    log.warn({ conversation: m.conversationKey, err: errorMessage(e) }, 'memories not read');
    return {};
  }
}

/** A tool's start or end as the gateway's status event: its input, or the start of its output, raw. */
function statusOf(e: Extract<AgentEvent, { type: 'tool-start' | 'tool-end' }>): GatewayAgentEvent {
  if (e.type === 'tool-start')
    return { type: 'status', text: e.status, detail: JSON.stringify(e.input, null, 2) ?? '', callId: e.id };
  const output = e.output !== undefined ? { output: e.output, outputChars: e.outputChars ?? e.output.length } : {};
  return { type: 'status-clear', text: e.status, callId: e.id, ...output };
}

/** Whether the run's model takes image parts (a model that cannot be resolved fails the run anyway). */
function visionOf(o: AgentRunnerOptions, spec: string | undefined): boolean {
  try {
    return supportsVision(o.deps.resolveModel(spec).id, o.visionModels);
  } catch {
    return false;
  }
}

/** Builds the gateway's AgentRunner. */
export function createAgentRunner(o: AgentRunnerOptions): AgentRunner {
  const log = o.log ?? silentLogger;
  const maxFileBytes = o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // `attach` collects the run's files; the send_file tool reads the conversation's own workspace.
  const depsFor = (
    ctx: ToolContext,
    workspace: string,
    attach: (f: AttachedFile) => void,
    extra: BuiltinTool[] = [],
  ): AgentDeps => ({
    ...o.deps,
    builtins: [
      ...(o.deps.builtins ?? []),
      ...(o.builtinsFor?.(ctx) ?? []),
      createSendFileTool({ workspace, maxBytes: maxFileBytes, attach }),
      ...extra,
    ],
  });
  // The run's models (its sub-agents' too: they resolve through the same deps) give the run's slot up while they
  // stream, so runs waiting on a provider do not keep other conversations from running.
  const releasing = (deps: AgentDeps, slot: RunSlot | undefined): AgentDeps =>
    slot
      ? {
          ...deps,
          resolveModel: (spec) => {
            const m = deps.resolveModel(spec);
            return { ...m, provider: withSlotReleased(m.provider, slot) };
          },
        }
      : deps;
  const memoryTools = (m: InboundMessage): BuiltinTool[] =>
    o.memory ? createMemoryTools(o.store.memories, memoryView(m)) : [];
  const digestFor = async (m: InboundMessage): Promise<{ digest?: string; untrusted?: string }> =>
    o.memory ? memoriesFor(o.store, m, o.memory.digestChars, log) : {};
  const agentPolicy = (policy: ResolvedPolicy, workspace: string): AgentPolicy =>
    toAgentPolicy(policy, {
      workspace,
      sandbox: o.sandbox,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
    });
  const now = o.now ?? Date.now;
  const records = createWorkspaceRecords(o.store.kv);
  const spend = o.spend ?? createDailySpend(o.store.usage, { now, log });
  /**
   * The daily budget rule of the message's run: charged to its conversation (its channel's too,
   * for a thread) and its sender, held against the budgets the policy puts on them.
   */
  const budgetOf = (m: InboundMessage, policy: ResolvedPolicy): BudgetRule =>
    createBudgetRule(spend, { conversationKey: m.conversationKey, userKey: userKeyOf(m) }, policy.budget, now);
  /**
   * Why the message's conversation or user may not spend more today (undefined: they may): what
   * the ledger counts as spent (the figure the store holds once written), and what model calls
   * in flight hold when that is what takes the budget up.
   */
  const overBudget = (message: InboundMessage, rule: BudgetRule): string | undefined => {
    const first = rule.takenUp()[0];
    if (!first) return undefined;
    const { limit, spent, held } = first;
    const inFlight = held > 0 ? ` and runs in progress hold ${usd(held)}` : '';
    if (limit.kind === 'user')
      return `you have spent ${usd(spent)} today${inFlight}, your daily budget is ${usd(limit.usd)}`;
    const who = spaceOf(message.conversationKey).spaceKey ? 'this channel (all its threads)' : 'this conversation';
    return `${who} has spent ${usd(spent)} today${inFlight}, its daily budget is ${usd(limit.usd)}`;
  };

  /** What a run for `message` would be offered, built without running anything (for /whoami). */
  const offered = (policy: ResolvedPolicy, message: InboundMessage): [AgentPolicy, AgentDeps] => {
    const workspace = workspaceOf(o.workspacesDir, message.conversationKey);
    const ctx = {
      conversationKey: message.conversationKey,
      userId: message.userId,
      userKey: userKeyOf(message),
      policy,
    };
    const extra = [...memoryTools(message), ...(o.mcp?.cachedToolsFor(policy.mcp) ?? [])];
    return [agentPolicy(policy, workspace), depsFor(ctx, workspace, () => undefined, extra)];
  };

  return {
    async run({ message, policy: given, signal, onEvent, persist = once, approve, media, slot, ready }) {
      if (o.unavailableHint) return { text: o.unavailableHint, outcome: 'unavailable' };
      // Files the user was told about (refused, not transcribed) lead the answer, one line each.
      const notices = media?.notices.length ? `${media.notices.join('\n')}\n\n` : '';
      const key = message.conversationKey;
      const workspace = workspaceOf(o.workspacesDir, key);
      // A full disk or a failing volume is waited out, here and when the history is saved: an
      // error thrown from here would become an apology that marks the message answered although
      // it never was. Only a stopping gateway ends the wait (the message then runs again at the
      // next start, and a turn already saved is replayed from the history).
      // The history and the memory digest are read while the workspace is made ready: none of
      // them waits on another (caught here so that neither rejects unheard if a step before fails).
      const reading = persist('history', () => o.store.conversations.get(key));
      reading.catch(() => undefined);
      const digesting = digestFor(message);
      // Every message after a conversation's first finds its workspace there: one stat says so,
      // where mkdir -p would take a trip through libuv's pool (shared with the store's writes).
      if (!isDirectory(workspace)) await persist('workspace', () => mkdir(workspace, { recursive: true }));
      // Who sent the files just saved there, kept before any run reads them (and again on a resume).
      const paths = media?.files.map((f) => f.path) ?? [];
      await persist('workspace record', () => recordUploads(records, message, workspace, paths));
      let history: Message[] = [];
      let note = '';
      let chosen: string | undefined;
      try {
        const conversation = await reading;
        history = withoutLastTurn(conversation?.messages ?? [], message.replacesTurn);
        chosen = conversation?.model;
      } catch (e) {
        if (!(e instanceof StoreCorruptError)) throw e;
        // The store moved the file aside; answer on a fresh history and say so once.
        log.error(
          { conversation: key, file: e.file, movedTo: e.movedTo, reason: e.reason },
          'conversation history was corrupt',
        );
        note =
          '(Note: this conversation’s saved history was unreadable; it was set aside for an admin, so I start ' +
          'fresh.)\n\n';
      }
      // The model chosen with /model, while the policy still allows it.
      const policy = withModelChoice(given, chosen);
      // A run again of a message whose turn is already in the history (the process died after
      // saving it, before the answer reached the outbox) delivers that answer: no second model
      // call, no second copy of the turn.
      const earlier = answerInHistory(history, message.id);
      const files: AttachedFile[] = [];
      if (earlier !== undefined) {
        // Its files never reached the outbox either: they are read from the workspace again.
        const tool = createSendFileTool({ workspace, maxBytes: maxFileBytes, attach: (f) => files.push(f) });
        const missing = await attachAgain(tool, policy, filesInHistory(history, message.id), signal);
        const again = files.length ? { files } : missing ? {} : { replayable: true as const };
        return { text: earlier + missing, outcome: 'replayed', ...again };
      }
      // In groups the model needs to know who is speaking.
      const built = mediaInput(message.text, media, {
        vision: visionOf(o, policy.model),
        ...(message.isDirect ? {} : { speaker: message.userName }),
      });
      // Never an empty user turn: a message whose files left nothing to read (a refused file, a
      // voice note nobody can transcribe) gets its notices, or one line, and no model call.
      // A message without files is run as before (a button press has empty text by design).
      if (built.empty && (media || message.attachments.length > 0)) {
        const why = notices.trim() || 'I could not read anything in that message; please send it as text.';
        return { text: why, outcome: 'nothing-to-read' };
      }
      // Nothing is spent or saved for a message until its save is durable (`ready`), nor ever for a duplicate.
      const input = built.text;
      const budget = budgetOf(message, policy);
      // Today's spending of the budgeted subjects (a store round trip only when a budget applies).
      if (budget.limits.length) await persist('usage', () => budget.prepare());
      // Words of other people in a shared conversation are content the requester did not write.
      // What else the history holds that nobody can trust, runAgent reads from its provenance.
      const others = history.some((m) => isInput(m) && authorsOf(m).some((a) => a !== message.userId));
      const mcpTools = o.mcp ? await o.mcp.toolsFor(policy.mcp) : [];
      // Why a model call was refused, as it stood then: the stop notice's words if nothing is over
      // the budget any more once the run's charges are written (a call in flight then failed).
      let refused: string | undefined;
      const memories = await digesting;
      const untrusted = [
        ...(others ? ['messages from other users in this conversation'] : []),
        ...(history[0] && isUnrecordedSummary(history[0]) ? [UNRECORDED_SUMMARY] : []),
        ...(memories.untrusted ? [memories.untrusted] : []),
      ];
      const runPolicy = agentPolicy(policy, workspace);
      const deps = releasing(
        depsFor(
          { conversationKey: key, userId: message.userId, userKey: userKeyOf(message), policy },
          workspace,
          (f) => files.push(f),
          [...memoryTools(message), ...mcpTools],
        ),
        slot,
      );
      let known: ((name: string) => boolean) | undefined;
      const toolLabel = (name: string) => ((known ??= knownToolName(runPolicy, deps))(name) ? name : 'unknown');
      const result = await runAgent({
        history,
        input: built.parts,
        ...(memories.digest ? { memories: memories.digest } : {}),
        policy: runPolicy,
        deps,
        signal,
        ...(approve ? { approve } : {}),
        ...(untrusted.length ? { untrusted } : {}),
        workspace: await workspaceTrust(records, message, log),
        ...(ready ? { ready } : {}),
        meterHooks: budgetHooks(budget, persist, () => {
          refused ??= overBudget(message, budget);
        }),
        onEvent: (e) => {
          if (e.type === 'text-delta') onEvent({ type: 'text-delta', text: e.text });
          else if (e.type === 'tool-start') {
            o.metrics?.toolCalls.inc({ tool: toolLabel(e.name), result: 'started' });
            onEvent(statusOf(e));
          } else if (e.type === 'tool-end') {
            o.metrics?.toolCalls.inc({ tool: toolLabel(e.name), result: e.isError ? 'error' : 'ok' });
            onEvent(statusOf(e));
          } else if (e.type === 'executors') onEvent({ type: 'checklist', lines: checklistLines(e.items) });
        },
      });
      // A run interrupted by shutdown is not saved: it runs again from the same history at the next start.
      // The run's own charges are waited for (budget: this run's rule), never another conversation's.
      if (signal.reason instanceof GatewayStoppingError || (ready && !(await ready))) {
        await budget.flush(); // what was spent stays counted
        return { text: '', outcome: 'interrupted' };
      }
      let saved: string | undefined; // the answer as the saved history holds it
      if (result.outcome !== 'error') {
        const turn = withoutImages(
          tagTurn(keepAuthors(result.messages, history, message.userId), input, message.id, message.userId),
        );
        await saveBehindCharges(budget, persist, () => o.store.conversations.setMessages(key, turn));
        saved = answerInHistory(turn, message.id);
      } else await budget.flush();
      const text = note + notices + transcriptNote(media) + result.text.trim();
      if (result.outcome === 'error') log.error({ conversation: key, err: result.error }, 'agent run failed');
      // Counted after the run's charges are written: the figure the store holds, not one taken
      // while they were still being settled.
      const why = result.outcome === 'budget-exceeded' ? (overBudget(message, budget) ?? refused) : undefined;
      const reply: AgentRunReply = {
        text: outcomeText(result.outcome, text, {
          ...(why ? { why } : {}),
          error: redactLine(result.error ?? 'unknown error', o.secretValues),
        }),
        outcome: result.outcome,
      };
      // Whatever the outcome, what the run attached goes with its words; a saved answer sent as saved is replayable.
      return files.length ? { ...reply, files } : saved === reply.text ? { ...reply, replayable: true } : reply;
    },
    async reset(key) {
      await o.store.conversations.reset(key);
    },
    toolsFor(policy, message) {
      return offeredToolNames(...offered(policy, message));
    },
    approvalToolsFor(policy, message) {
      return approvalToolNames(...offered(policy, message));
    },
    async newSession(key, requestId) {
      const archived = await o.store.conversations.archive(key, requestId);
      return { archivedMessages: archived?.messages.length ?? 0 };
    },
    async compact({ message, policy, signal }) {
      const key = message.conversationKey;
      const history = (await o.store.conversations.get(key))?.messages ?? [];
      const budget = budgetOf(message, policy);
      await budget.prepare();
      const model = o.deps.resolveModel(policy.model);
      // The summary call holds its estimated cost like a run's calls (the whole history in, the most it may answer).
      const estimate = o.deps.costOf(model.id, {
        inputTokens: estimateTokens('', history, []),
        outputTokens: RESERVED_OUTPUT_TOKENS,
      });
      const hold = budget.reserve(estimate ?? 0);
      if ('refused' in hold)
        throw new Error(`not compacted: ${overBudget(message, budget) ?? 'the daily budget is spent'}`);
      let s: Awaited<ReturnType<typeof summarizeHistory>>;
      try {
        // Asked for by a person: everything but the last turn goes into the summary.
        // The summary carries the taint of what it replaces, read as a run would read it.
        const outside = outsideToolsOf(...offered(policy, message));
        s = await summarizeHistory(model.provider, model.model, history, signal, 1, outside);
        if (s) {
          const costUsd = s.usage ? o.deps.costOf(s.usageModel ?? model.id, s.usage) : undefined;
          budget.charge(s.usageModel ?? model.id, s.usage ?? { inputTokens: 0, outputTokens: 0 }, costUsd, once);
        }
      } finally {
        hold.release();
      }
      if (!s) return undefined;
      await spend.flush();
      // A summary an older boxbot saved retold who knows what: the new one keeps that taint.
      const [head, ...rest] = s.messages;
      const messages =
        head && history[0] && isUnrecordedSummary(history[0])
          ? [{ ...head, untrusted: [...(head.untrusted ?? []), UNRECORDED_SUMMARY] }, ...rest]
          : s.messages;
      await o.store.conversations.setMessages(key, keepAuthors(messages, history));
      return { before: history.length, after: s.messages.length };
    },
    async chosenModel(key) {
      return (await o.store.conversations.get(key).catch(() => undefined))?.model;
    },
    async chooseModel(key, model) {
      await o.store.conversations.setModel(key, model);
    },
    async usage(message, policy): Promise<UsageView> {
      const day = utcDay(now());
      await spend.flush();
      const channel = channelSubjects(message.conversationKey);
      const [conversation, user, ...ofChannel] = await Promise.all([
        o.store.usage.get({ conversationKey: message.conversationKey }, day),
        o.store.usage.get({ userKey: userKeyOf(message) }, day),
        ...channel.map((s) => o.store.usage.get(s, day)),
      ]);
      const channelUsdToday = ofChannel.reduce((sum, r) => sum + r.day.costUsd, 0);
      return { day, conversation, user, channelUsdToday, ...(policy.budget ? { budget: policy.budget } : {}) };
    },
  };
}

/**
 * Saves a turn's history once its charges are in the store's line, and resolves once both are
 * durable. Spending is durable no later than the answer is: a saved turn is answered again from the
 * history after a crash, with no model call, so its charges must not be lost with it. Behind the
 * charges (UsageStore.add's `queued`), the file store's journal syncs both at once, in that order.
 * A try after a failure waits for the charges to be written (a failed append fails what is in line
 * behind it). Left open: a failure found before the history reaches the line lets the history's
 * first try land before the charge's retry; a crash in that backoff loses the charge's record.
 */
async function saveBehindCharges(charges: BudgetRule, persist: Persist, save: () => Promise<unknown>): Promise<void> {
  await charges.inLine();
  let tries = 0;
  const saved = persist('history', async () => {
    if (tries++) await charges.flush();
    await save();
  });
  await Promise.all([charges.flush(), saved]);
}
