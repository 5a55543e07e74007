// Summary compaction: the model rewrites the older turns of a history as one summary, and the
// last few turns stay as they were. `/compact` asks for it; the loop does it by itself when the
// history is still near the context window after tool results were shortened (compaction.ts).
import type { ContentPart, Message, Provider, Usage } from '../types.ts';
import { modelStep } from './model-step.ts';
import { untrustedIn } from './provenance.ts';

/** Turns (user inputs with what followed) kept whole after a summary. */
export const SUMMARY_KEEP_TURNS = 2;

/** Opens the summary message, so it can be told from a user's words. */
export const SUMMARY_MARK = '[Summary of the earlier conversation]';

const SUMMARY_SYSTEM =
  'You compact a conversation between a user and an AI assistant. Write a concise summary of it that lets the ' +
  'assistant continue: the user’s goals and preferences, facts and decisions, files and names that matter, and ' +
  'open questions. Plain text, no preamble.';

/** A user message that starts a turn (not one carrying tool results). */
const isInput = (m: Message): boolean => m.role === 'user' && !m.content.some((p) => p.type === 'tool-result');

function render(p: ContentPart): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'image':
      return '[an image]';
    case 'tool-call':
      return `[called ${p.name} ${JSON.stringify(p.input ?? {}).slice(0, 300)}]`;
    case 'tool-result':
      return `[${p.name} ${p.isError ? 'failed' : 'returned'}: ${p.content.slice(0, 500)}]`;
    case 'thinking':
      return '';
  }
}

/** The history as a transcript for the summarising model. */
function transcript(messages: Message[]): string {
  return messages
    .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content.map(render).filter(Boolean).join('\n')}`)
    .join('\n\n');
}

/**
 * Where the kept tail starts: the `keep`-th last turn's input; 0 (nothing to summarise) if there
 * are not more turns.
 */
export function summaryCut(messages: Message[], keep = SUMMARY_KEEP_TURNS): number {
  const inputs: number[] = [];
  messages.forEach((m, i) => isInput(m) && inputs.push(i));
  if (inputs.length <= keep) return 0;
  return inputs[inputs.length - keep]!;
}

/** What a summary produced. */
export interface Summarized {
  messages: Message[];
  /** Messages replaced by the summary. */
  replaced: number;
  usage: Usage | undefined;
  usageModel?: string;
}

/**
 * Asks the model for a summary of every turn before the last `keep`, and returns the history as
 * summary + kept turns; undefined when there is nothing older to summarise. Throws the provider's error.
 * `mayBringOutside` says which tools' results without a source are an older boxbot's (untrusted);
 * by default every tool's.
 */
export async function summarizeHistory(
  provider: Provider,
  model: string,
  messages: Message[],
  signal: AbortSignal,
  keep = SUMMARY_KEEP_TURNS,
  mayBringOutside: (tool: string) => boolean = () => true,
): Promise<Summarized | undefined> {
  const cut = summaryCut(messages, keep);
  if (cut === 0) return undefined;
  const older = messages.slice(0, cut);
  const turn = await modelStep(
    provider,
    {
      model,
      system: SUMMARY_SYSTEM,
      messages: [{ role: 'user', content: [{ type: 'text', text: transcript(older) }] }],
      tools: [],
    },
    signal,
    () => undefined,
  );
  const summary = turn.text.trim();
  if (!summary) return undefined;
  // A user message then an assistant one, so the kept turns still alternate as providers require.
  // The summary retells whatever untrusted content the turns it replaces held: it carries their
  // taint (always set, so a summary without it is one stored before taint was recorded).
  const head: Message[] = [
    {
      role: 'user',
      content: [{ type: 'text', text: `${SUMMARY_MARK}\n${summary}` }],
      untrusted: untrustedIn(older, mayBringOutside),
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted; I will continue from this summary.' }] },
  ];
  return {
    messages: [...head, ...messages.slice(cut)],
    replaced: older.length,
    usage: turn.usage,
    ...(turn.usageModel ? { usageModel: turn.usageModel } : {}),
  };
}
