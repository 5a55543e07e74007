// Context compaction: when the history nears the model's context window (80%, tokens estimated
// as characters / 4) or its tool results exceed a character budget, tool results older than the
// last few turns become one-line summaries. User and assistant text is never touched.
import type { ContentPart, Message, ToolDefinition } from '../types.ts';

/** Knobs of compaction. */
export interface CompactionOptions {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Total characters of tool results kept in full (default 50,000). */
  toolResultCharBudget?: number;
  /** Tool rounds at the end whose results stay whole (default 2). */
  keepTurns?: number;
  /** Fraction of the window that triggers compaction (default 0.8). */
  threshold?: number;
}

/** Default character budget for tool results in the history. */
export const DEFAULT_TOOL_RESULT_CHAR_BUDGET = 50_000;
/** Default context window when the model's is unknown. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const MARK = '[compacted]';
/** Images count as a fixed size, not their base64 length. */
const IMAGE_CHARS = 6_000;

function partChars(p: ContentPart): number {
  switch (p.type) {
    case 'text':
    case 'thinking':
      return p.text.length;
    case 'image':
      return IMAGE_CHARS;
    case 'tool-call':
      return p.name.length + JSON.stringify(p.input ?? {}).length;
    case 'tool-result':
      return p.content.length;
  }
}

/**
 * Characters of each input schema seen, by the schema object: a run's tools are estimated at every
 * model call, and the tools made per run share their schema objects across runs.
 */
const schemaChars = new WeakMap<object, number>();

function charsOfSchema(schema: Record<string, unknown>): number {
  let n = schemaChars.get(schema);
  if (n === undefined) {
    n = JSON.stringify(schema).length;
    schemaChars.set(schema, n);
  }
  return n;
}

/** Approximate tokens of a request: characters / 4. */
export function estimateTokens(system: string, messages: Message[], tools: ToolDefinition[]): number {
  let chars = system.length;
  for (const m of messages) for (const p of m.content) chars += partChars(p);
  for (const t of tools) chars += t.name.length + t.description.length + charsOfSchema(t.inputSchema);
  return Math.ceil(chars / 4);
}

/** Characters of tool results not yet compacted. */
export function toolResultChars(messages: Message[]): number {
  let n = 0;
  for (const m of messages)
    for (const p of m.content) if (p.type === 'tool-result' && !p.content.startsWith(MARK)) n += p.content.length;
  return n;
}

const oneLine = (s: string, max: number) => {
  const line =
    s
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function describeInput(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const parts = Object.entries(input as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .slice(0, 3)
    .map(([k, v]) => `${k}=${JSON.stringify(typeof v === 'string' && v.length > 40 ? `${v.slice(0, 39)}…` : v)}`);
  return parts.join(', ');
}

/** The one-line summary that replaces an old tool result. */
export function summarizeResult(p: Extract<ContentPart, { type: 'tool-result' }>, input: unknown): string {
  const first = oneLine(p.content, 100);
  return (
    `${MARK} ${p.name}(${describeInput(input)}) returned ${p.content.length.toLocaleString('en-US')} ` +
    `characters${p.isError ? ' (error)' : ''}, removed to save ` +
    `context${first ? `; first line: ${JSON.stringify(first)}` : ''}`
  );
}

/** Whether the history needs compacting before the next model call. */
export function needsCompaction(
  system: string,
  messages: Message[],
  tools: ToolDefinition[],
  opts: CompactionOptions,
  /** estimateTokens(system, messages, tools) when the caller has it already. */
  estimate?: number,
): boolean {
  const budget = opts.toolResultCharBudget ?? DEFAULT_TOOL_RESULT_CHAR_BUDGET;
  if (toolResultChars(messages) > budget) return true;
  return (estimate ?? estimateTokens(system, messages, tools)) > (opts.threshold ?? 0.8) * opts.contextWindow;
}

/** Replaces tool results older than the last `keepTurns` tool rounds by summaries; returns new messages. */
export function compact(
  messages: Message[],
  keepTurns = 2,
): { messages: Message[]; removedChars: number; results: number } {
  const inputs = new Map<string, unknown>();
  for (const m of messages) for (const p of m.content) if (p.type === 'tool-call') inputs.set(p.id, p.input);
  const rounds: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user' && m.content.some((p) => p.type === 'tool-result')) rounds.push(i);
  });
  const keepFrom = rounds.length > keepTurns ? rounds[rounds.length - keepTurns]! : -1;
  let removedChars = 0;
  let results = 0;
  const out = messages.map((m, i) => {
    if (i >= keepFrom || !rounds.includes(i)) return m;
    let changed = false;
    const content = m.content.map((p) => {
      if (p.type !== 'tool-result' || p.content.startsWith(MARK)) return p;
      const summary = summarizeResult(p, inputs.get(p.id));
      if (summary.length >= p.content.length) return p;
      changed = true;
      removedChars += p.content.length - summary.length;
      results++;
      return { ...p, content: summary };
    });
    return changed ? { ...m, content } : m;
  });
  return { messages: out, removedChars, results };
}
