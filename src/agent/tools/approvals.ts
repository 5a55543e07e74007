// Approvals as data: which tool calls wait for a person's yes (by level, by name, after the run
// took in untrusted content, or as a single escalation of a read-only chat), and the per-run gate
// that asks. The asking itself (buttons, the journal) is the caller's: the gateway supplies
// `ask`; a run with nobody to ask (a scheduled job, `boxbot ask`) refuses such calls instead.

import type { ResultSource } from '../types.ts';
import type { PermissionLevel, ToolPolicy } from './grants.ts';
import { permits } from './grants.ts';

/** A conversation's approval rules (policy `approvals`). */
export interface ApprovalRules {
  levels?: PermissionLevel[];
  tools?: string[];
  /** Platform user ids who may decide, or `requester` (the default). */
  approvers?: string[] | 'requester';
  timeoutMs?: number;
  afterUntrusted?: boolean;
  allowEscalation?: boolean;
}

/** Why a call waits for approval. */
export type ApprovalReason = 'policy' | 'untrusted' | 'escalation';

/** What the person deciding is shown: the exact call and what it would get. */
export interface ApprovalQuestion {
  tool: string;
  input: unknown;
  level: PermissionLevel;
  /** Host folders the call would get, and whether read-only. */
  folders: { path: string; readOnly: boolean }[];
  /** Hosts it could reach. */
  hosts: string[];
  reasons: ApprovalReason[];
  /** What untrusted content the run took in before (for `untrusted`). */
  untrusted: string[];
}

/** An approved call's result as journaled: what the model read, and where it came from. */
export interface JournaledResult {
  content: string;
  isError: boolean;
  source?: Omit<ResultSource, 'tool'>;
}

/** A decision. An approved call that already ran before a restart comes back as `replay` (never run twice). */
export type ApprovalAnswer =
  | {
      approved: true;
      replay?: JournaledResult;
      ran?: (r: JournaledResult) => Promise<void>;
    }
  | { approved: false; reason: string };

/** Asks a person; resolves with their decision (a timeout or a stop is a refusal). */
export type AskApproval = (q: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** One run's approval state: the rules, who to ask, and what untrusted content it has read. */
export interface ApprovalGate {
  readonly rules: ApprovalRules | undefined;
  /** Undefined: nobody can be asked (calls that need approval are refused, saying `nobodyToAsk`). */
  readonly ask: AskApproval | undefined;
  readonly nobodyToAsk: string;
  /** What untrusted content this run took in, in order. */
  readonly untrusted: string[];
  /** Records untrusted content the run took in. */
  tookIn(what: string): void;
}

/** A gate for one run. */
export function createApprovalGate(
  rules: ApprovalRules | undefined,
  ask: AskApproval | undefined,
  nobodyToAsk = 'it needs a person’s approval, and nobody can be asked in this run',
): ApprovalGate {
  const untrusted: string[] = [];
  return {
    rules,
    ask,
    nobodyToAsk,
    untrusted,
    tookIn(what) {
      if (!untrusted.includes(what)) untrusted.push(what);
    },
  };
}

const WRITES: PermissionLevel[] = ['Write', 'Execute'];

/**
 * Whether a tool of this name and level may be offered/called: allowed outright, allowed only as
 * an approved escalation (a read-only chat whose rules say `allowEscalation`), or refused.
 */
export function permitsWithApproval(
  policy: Pick<ToolPolicy, 'access' | 'tools'>,
  rules: ApprovalRules | undefined,
  name: string,
  level: PermissionLevel,
): { ok: true; escalation: boolean } | { ok: false; reason: string } {
  const plain = permits(policy, name, level);
  if (plain.ok) return { ok: true, escalation: false };
  if (rules?.allowEscalation && policy.access === 'read-only' && WRITES.includes(level)) {
    const lifted = permits({ ...policy, access: 'full' }, name, level);
    if (lifted.ok) return { ok: true, escalation: true };
  }
  return plain;
}

/** Why this call needs approval (empty: it does not). */
export function approvalReasons(
  rules: ApprovalRules | undefined,
  name: string,
  level: PermissionLevel,
  escalation: boolean,
  tainted: boolean,
): ApprovalReason[] {
  const out: ApprovalReason[] = [];
  if (rules?.levels?.includes(level) || rules?.tools?.includes(name)) out.push('policy');
  if (rules?.afterUntrusted && tainted && WRITES.includes(level)) out.push('untrusted');
  if (escalation) out.push('escalation');
  return out;
}

/** For /whoami: which of `tools` (name → level) always need approval under `rules`. */
export function toolsNeedingApproval(
  rules: ApprovalRules | undefined,
  tools: { name: string; level: PermissionLevel; escalation?: boolean }[],
): string[] {
  return tools.filter((t) => approvalReasons(rules, t.name, t.level, !!t.escalation, false).length).map((t) => t.name);
}
