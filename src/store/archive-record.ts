// The record a conversation is archived as, the same in every store: its id sorts by time, and
// the count of earlier archives breaks a tie within one millisecond.

import { fileStamp } from './files.ts';
import type { ArchivedConversation, Conversation } from './types.ts';

/** The archive of `cur` under `key`, made at `at` (ms) after `earlier` archives of it. */
export function archiveRecord(
  key: string,
  cur: Pick<Conversation, 'createdAt' | 'messages'>,
  o: { at: number; archivedAt: string; earlier: number; requestId?: string | undefined },
): ArchivedConversation {
  return {
    key,
    id: `${fileStamp(o.at)}-${String(o.earlier).padStart(4, '0')}`,
    createdAt: cur.createdAt,
    archivedAt: o.archivedAt,
    messages: cur.messages,
    ...(o.requestId ? { requestId: o.requestId } : {}),
  };
}

/** The ids of archives made before `ms` sort before this string (ids start with the time they were made). */
export function archiveIdBefore(ms: number): string {
  return fileStamp(ms);
}
