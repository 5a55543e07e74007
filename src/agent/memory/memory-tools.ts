// The memory tools of one run, bound to its speaker and conversation. One tool has one level, so
// memory is three tools: `memory_recall` (ReadOnly: a read-only chat may look notes up) and
// `memory_remember` / `memory_forget` (Write: only a chat with full access changes them).
import { errorMessage } from '../../core/errors.ts';
import type { MemoryRecord, MemoryStore } from '../../store/index.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import { forget, MAX_MEMORY_CHARS, type MemoryView, memoryLine, remember, visibleMemories } from './memory-book.ts';
import { searchMemories } from './search.ts';

/** Most notes one recall returns. */
const MAX_RECALL = 20;

const failed = (what: string, e: unknown) => ({ content: `${what} failed: ${errorMessage(e)}`, isError: true });

/**
 * Why `notes` are untrusted for a run of `view`'s user (undefined: they are not): another user's
 * note for the conversation, or a note a run saved after reading untrusted content.
 * Example: untrustedNotes(notes, view) → 'notes other users saved for this conversation'
 */
export function untrustedNotes(notes: MemoryRecord[], view: MemoryView): string | undefined {
  const byOthers = notes.some((m) => m.scope.kind === 'conversation' && m.createdBy !== view.userKey);
  const why = [
    ...(byOthers ? ['notes other users saved for this conversation'] : []),
    ...notes.flatMap((m) => (m.untrusted ? [`a note saved after reading ${m.untrusted}`] : [])),
  ];
  return why.length ? [...new Set(why)].join('; ') : undefined;
}

/** The tools' inputs: one object each for every run (the prompt's estimate measures a schema once). */
const RECALL_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Keywords to look for' },
    limit: { type: 'integer', description: `Most notes to return (default 10, at most ${MAX_RECALL})` },
  },
  additionalProperties: false,
};

const REMEMBER_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string', description: `The note (at most ${MAX_MEMORY_CHARS} characters)` },
    scope: { type: 'string', enum: ['user', 'conversation'], description: 'Who sees it (default user)' },
  },
  required: ['text'],
  additionalProperties: false,
};

const FORGET_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The note id, e.g. m-1a2b3c4d' } },
  required: ['id'],
  additionalProperties: false,
};

/** memory_recall, memory_remember and memory_forget for `view`. */
export function createMemoryTools(store: MemoryStore, view: MemoryView): BuiltinTool[] {
  const recall: BuiltinTool = {
    name: 'memory_recall',
    description:
      'Search the notes saved in earlier conversations (by this user, or in this conversation) by keywords. ' +
      'An empty query lists the newest. Each line starts with the note id.',
    inputSchema: RECALL_SCHEMA,
    permissionLevel: 'ReadOnly',
    async run(input) {
      try {
        const limit = Math.max(1, Math.min(MAX_RECALL, Number(input.limit ?? 10) || 10));
        const found = searchMemories(await visibleMemories(store, view), String(input.query ?? ''), limit);
        // Another user's note for the conversation carries their words, as their messages would
        // (policy approvals.afterUntrusted), whether it reached the run by the digest or by a recall;
        // so does a note a run saved after it had read untrusted content.
        const untrusted = untrustedNotes(found, view);
        return {
          content: found.length ? found.map((m) => memoryLine(m)).join('\n') : 'No notes found.',
          isError: false,
          ...(untrusted ? { untrusted } : {}),
        };
      } catch (e) {
        return failed('recall', e);
      }
    },
  };
  const rememberTool: BuiltinTool = {
    name: 'memory_remember',
    description:
      'Save a short note for later conversations: a fact, preference or decision worth keeping. Scope "user" ' +
      '(default): only this user sees it, in any conversation with them; "conversation": everyone here sees it. ' +
      'Never save passwords, keys or other secrets.',
    inputSchema: REMEMBER_SCHEMA,
    permissionLevel: 'Write',
    async run(input, ctx) {
      try {
        const scope = input.scope === 'conversation' ? 'conversation' : 'user';
        // What the run had read goes with the note: a later run reading it reads that too.
        const read = ctx.untrusted?.length ? ctx.untrusted.join('; ') : undefined;
        const r = await remember(store, view, String(input.text ?? ''), scope, new Date(), read);
        return r.ok
          ? { content: `Saved as ${r.record.id}.`, isError: false }
          : { content: `not saved: ${r.reason}`, isError: true };
      } catch (e) {
        return failed('remember', e);
      }
    },
  };
  const forgetTool: BuiltinTool = {
    name: 'memory_forget',
    description: 'Delete one saved note by its id (as memory_recall lists it).',
    inputSchema: FORGET_SCHEMA,
    permissionLevel: 'Write',
    async run(input) {
      try {
        const id = String(input.id ?? '').trim();
        const r = await forget(store, view, id);
        if (r === 'deleted') return { content: `Forgot ${id}.`, isError: false };
        return r === 'not-yours'
          ? {
              content: `not deleted: ${id} was saved by another user; only they or an admin may delete it`,
              isError: true,
            }
          : { content: `no note ${id} is visible here`, isError: true };
      } catch (e) {
        return failed('forget', e);
      }
    },
  };
  return [recall, rememberTool, forgetTool];
}
