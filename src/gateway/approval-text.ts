// What the approval desk says and how it names things: the question's text (the exact call, what
// it would get, why it asks, who decides), the buttons' ids, who may decide under a set of rules,
// and the words of the outcomes shown under a question. Pure: no store, no platform.
import { decodeUserKey, encodeUserKey, type InboundMessage, type Platform, type UserRef } from '../adapters/index.ts';
import type { ApprovalQuestion, ApprovalRules } from '../agent/index.ts';

/** How long a question waits by default. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** The button id of a decision. */
export const approvalButtonId = (id: string, approve: boolean): string => `ap:${id}:${approve ? 'y' : 'n'}`;

/** The approval id and decision a button id carries, if it is one of ours. */
export function parseApprovalButton(buttonId: string): { id: string; approve: boolean } | undefined {
  const m = /^ap:([a-z0-9]{4,16}):([yn])$/.exec(buttonId);
  return m ? { id: m[1]!, approve: m[2] === 'y' } : undefined;
}

/**
 * Why a guarded call is refused when nobody may decide it: rules combined from two policies
 * (stricterApprovals) whose approver lists share nobody. Today only scheduled jobs combine rules,
 * and they never ask (nobody is there to answer), so no chat reaches this; it is the desk's own
 * guard, failing closed at once rather than posting a question nobody can answer, for whatever
 * combines rules next.
 */
export const NO_APPROVERS =
  'nobody may approve it: the approval rules that apply here name no approver that every policy involved accepts';

/** Who may decide under `rules` now: the listed users (possibly none), or the requester. */
export function approversOf(rules: ApprovalRules | undefined, requesterId: string): string[] {
  return rules?.approvers && rules.approvers !== 'requester' ? [...rules.approvers] : [requesterId];
}

/**
 * How an approval names a person (as its requester, its approvers' list under `requester`, or who
 * decided): the platform's user id, or the identity a web browser signed in as (`telegram:4242`).
 */
export const personOf = (m: Pick<InboundMessage, 'userId' | 'signedInAs'>): string => m.signedInAs ?? m.userId;

const USER_ID = /^\S+$/;

/** The person `who` (a personOf) names, in a conversation of `platform`. */
function refOf(who: string, platform: Platform): UserRef {
  try {
    return decodeUserKey(who);
  } catch {
    return { platform, userId: who };
  }
}

/**
 * The speaker fields of a person named by personOf in a conversation of `platform`, for resolving
 * their policy again: a signed-in web browser's identity is its `signedInAs`, so the rules in force
 * are that user's, as they were for the run that asked.
 */
export function speakerFieldsOf(who: string, platform: Platform): Pick<InboundMessage, 'userId' | 'signedInAs'> {
  if (platform !== 'web' || !who.includes(':')) return { userId: who };
  const ref = refOf(who, platform);
  return ref.platform === 'web' && ref.userId === who
    ? { userId: who }
    : { userId: who, signedInAs: encodeUserKey(ref) };
}

/**
 * Whether the person `who` (a personOf, met in a conversation of `platform`) is among `approvers`,
 * matched as `admins` are: by user id or by `<platform>:<id>`, or as named exactly. A web browser
 * signed in as telegram:4242 is thus whatever Telegram's user 4242 would be.
 * @example isApprover(['4242'], 'telegram:4242', 'web') === true
 */
export function isApprover(approvers: readonly string[], who: string, platform: Platform): boolean {
  const ref = refOf(who, platform);
  // A name that is no user key (a dashboard decider's, an id with white space) matches only as written.
  const key = USER_ID.test(ref.userId) ? encodeUserKey(ref) : undefined;
  return approvers.some((a) => a === who || a === ref.userId || a === key);
}

export const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** What the old question says when it is withdrawn because its approvers changed. */
export const APPROVERS_CHANGED = 'Withdrawn: who may decide this changed; asked again below.';
/** Why a call made after its run finished is refused (its run's approvals are spent or withdrawn). */
export const RUN_FINISHED = 'the run that made this call has finished; approvals are not reused by late calls';
/** Why a question journaled but never shown (a crash before it was sent) is asked anew. */
export const NOT_SHOWN = 'Withdrawn: never shown; asked again.';
/** What a question left behind by a finished run says (the run after a restart did not ask it again). */
export const NOT_WAITED_ON = 'Withdrawn: the run that asked no longer waits for an answer.';

/** Stable JSON (sorted keys) to tell the same call from another. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

const REASON_WORDS: Record<ApprovalQuestion['reasons'][number], string> = {
  policy: 'this conversation’s policy asks for approval of this tool',
  untrusted: 'this run has read content it cannot trust',
  escalation: 'this chat is read-only; this would be a single exception',
};

/** The folder as people should see it: the last two segments (the server's layout stays private). */
const shortPath = (p: string) => `…/${p.split(/[\\/]/).filter(Boolean).slice(-2).join('/')}`;
const folderList = (folders: ApprovalQuestion['folders']) =>
  folders.length
    ? folders.map((f) => `${shortPath(f.path)} (${f.readOnly ? 'read-only' : 'read-write'})`).join(', ')
    : 'none';

/** The question as posted: the exact call, what it would get, why it asks, and who decides. */
export function questionText(
  q: ApprovalQuestion,
  o: { id: string; approvers: string; timeoutMs: number; typed: boolean; maxLength: number },
): string {
  const head = [`Approval needed (${o.id}): run ${q.tool} (${q.level})?`];
  const tail = [
    `Folders: ${folderList(q.folders)}`,
    `Hosts: ${q.hosts.length ? q.hosts.join(', ') : 'none'}`,
    `Why: ${q.reasons.map((r) => REASON_WORDS[r]).join('; ')}.`,
    ...(q.untrusted.length ? [`Read before: ${q.untrusted.join('; ')}.`] : []),
    `Who decides: ${o.approvers}. No answer in ${Math.round(o.timeoutMs / 1000)} s counts as no.`,
    ...(o.typed ? [`Reply /approve ${o.id} or /deny ${o.id}.`] : []),
  ];
  const fixed = [...head, ...tail].join('\n').length + 2;
  let args = JSON.stringify(q.input ?? {}, null, 1).replace(/\n\s*/g, ' ');
  const room = o.maxLength - fixed;
  if (args.length > room) args = `${args.slice(0, Math.max(0, room - 20))}… (truncated)`;
  return [...head, args, ...tail].join('\n').slice(0, o.maxLength);
}
