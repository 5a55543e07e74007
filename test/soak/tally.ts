// What users saw after a soak, counted: every user message carries its conversation and sequence
// number, and the model's answer echoes both, so each bot message's final text maps back to the
// message it answers. Pure: the runner hands in what it sent and what the platforms show.

/** The model's whole answer to message `n` of conversation `c` (its streamed pieces joined). */
export function answerParts(c: number, n: number): string[] {
  return [`ans c${c} n${n}`, ' working', ' on', ' it', ' done.'];
}

/** What a user types as message `n` of conversation `c`. */
export function userText(c: number, n: number): string {
  return `msg c${c} n${n}`;
}

/** The numbers in a user text (or in any text the model was given that holds one), if any. */
export function parseUserText(text: string): { c: number; n: number } | undefined {
  const m = /msg c(\d+) n(\d+)/.exec(text);
  return m ? { c: Number(m[1]), n: Number(m[2]) } : undefined;
}

/** One bot message as a platform shows it now (edits applied), in the conversation's order. */
export interface ShownMessage {
  conversation: number;
  text: string;
}

/** Per conversation and in total. */
export interface Counts {
  sent: number;
  delivered: number;
  lost: number;
  /** Extra bot messages carrying an answer already shown. */
  duplicated: number;
  /** Answers shown after the answer to a later message. */
  reordered: number;
  /** Bot messages still showing part of an answer (a preview never replaced by the answer). */
  strayPreviews: number;
  /** Answers shown in the wrong conversation. */
  misrouted: number;
  /** Bot messages that are none of the above (error notices and the like). */
  other: number;
}

/** The soak's result. */
export interface Tally extends Counts {
  perConversation: (Counts & { conversation: number })[];
  /** A few of the `other` texts, for the report. */
  otherSamples: string[];
}

const zero = (): Counts => ({
  sent: 0,
  delivered: 0,
  lost: 0,
  duplicated: 0,
  reordered: 0,
  strayPreviews: 0,
  misrouted: 0,
  other: 0,
});

/**
 * Counts, per conversation `c` (0..conversations-1) that was sent `sent[c]` messages numbered 0.., what `shown` holds.
 */
export function tally(sent: number[], shown: ShownMessage[]): Tally {
  const per = sent.map((count, conversation) => ({ ...zero(), conversation, sent: count }));
  const finals = new Map<string, { c: number; n: number }>();
  for (let c = 0; c < sent.length; c++) {
    for (let n = 0; n < sent[c]!; n++) {
      const whole = answerParts(c, n).join('');
      finals.set(whole, { c, n });
    }
  }
  const order = sent.map(() => [] as number[]);
  const seen = sent.map(() => new Set<number>());
  const otherSamples: string[] = [];
  for (const m of shown) {
    const p = per[m.conversation];
    if (!p) continue;
    const text = m.text.trim();
    const answer = finals.get(text);
    if (answer) {
      if (answer.c !== m.conversation) {
        p.misrouted++;
        continue;
      }
      if (seen[answer.c]!.has(answer.n)) p.duplicated++;
      else {
        seen[answer.c]!.add(answer.n);
        order[answer.c]!.push(answer.n);
      }
      continue;
    }
    if (isPartialAnswer(text)) {
      p.strayPreviews++;
      continue;
    }
    p.other++;
    if (otherSamples.length < 5) otherSamples.push(text.slice(0, 120));
  }
  for (const p of per) {
    const got = order[p.conversation]!;
    p.delivered = got.length;
    p.lost = p.sent - p.delivered;
    let highest = -1;
    for (const n of got) {
      if (n < highest) p.reordered++;
      highest = Math.max(highest, n);
    }
  }
  const total = zero();
  for (const p of per) for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += p[k];
  return { ...total, perConversation: per, otherSamples };
}

/** True when `text` is a strict start of an answer: what a preview shows while the answer streams. */
function isPartialAnswer(text: string): boolean {
  const m = /^ans c(\d+) n(\d+)/.exec(text);
  if (!m) return false;
  const whole = answerParts(Number(m[1]), Number(m[2])).join('');
  return whole.startsWith(text) && text.length < whole.length;
}

/** The file the model attaches to its answer to message `n` of conversation `c` (for the messages that get one). */
export function fileName(c: number, n: number): string {
  return `r-c${c}-n${n}.txt`;
}

/** Files of one platform: how many answers should carry one, and what arrived. */
export interface FileCounts {
  expected: number;
  delivered: number;
  /** Extra copies of a file already delivered (an upload repeated after a crash). */
  duplicated: number;
  lost: number;
}

/** Counts files by name: `expected` names each due once, `got` every file name a platform shows. */
export function tallyFiles(expected: string[], got: string[]): FileCounts {
  const due = new Set(expected);
  const seen = new Map<string, number>();
  for (const name of got) if (due.has(name)) seen.set(name, (seen.get(name) ?? 0) + 1);
  let duplicated = 0;
  for (const n of seen.values()) duplicated += n - 1;
  return { expected: due.size, delivered: seen.size, duplicated, lost: due.size - seen.size };
}

/** `count` per 100 kills (0 without kills: nothing was measured). */
export function per100Kills(count: number, kills: number): number {
  return kills > 0 ? Math.round((count * 10000) / kills) / 100 : 0;
}
