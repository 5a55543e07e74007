// Searching one user's own web chats: each message they were shown (their own words and the
// answers) indexed with MiniSearch (prefix and fuzzy matching) at each search, over that user's
// conversations only, and the best matches returned with the chat they are in and a short excerpt.
import MiniSearch from 'minisearch';
import type { ShownEvent } from './display-log.ts';

/** One message of one chat, as searched. */
export interface SearchedMessage {
  session: string;
  title: string;
  text: string;
}

/** One match: the chat, its title and an excerpt around the first word found. */
export interface SearchHit {
  session: string;
  title: string;
  excerpt: string;
}

/** The longest query taken, in characters. */
export const MAX_QUERY = 200;
const EXCERPT = 120;

/** The messages worth searching in a chat's shown events: the user's words and the bot's answers. */
export function searchableTexts(events: ShownEvent[]): string[] {
  return events.flatMap((e) =>
    (e.type === 'user' || e.type === 'message') && typeof e.text === 'string' && e.text.trim() ? [e.text] : [],
  );
}

/** An excerpt of `text` around the first of `terms` it holds (else its start), on one line. */
function excerptOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const found = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0);
  const at = found.length ? Math.min(...found) : 0;
  const from = Math.max(0, at - 30);
  const cut = flat.slice(from, from + EXCERPT);
  return `${from > 0 ? '…' : ''}${cut}${from + EXCERPT < flat.length ? '…' : ''}`;
}

/**
 * The best matches of `query` among `messages`, one per chat, best first (at most `limit`).
 * Example: searchMessages([{ session: 's1', title: 'Trip', text: 'book a train to Oslo' }], 'oslo')
 *   → [{ session: 's1', title: 'Trip', excerpt: 'book a train to Oslo' }]
 */
export function searchMessages(messages: SearchedMessage[], query: string, limit = 20): SearchHit[] {
  const q = query.slice(0, MAX_QUERY).trim();
  if (!q) return [];
  const ms = new MiniSearch<SearchedMessage & { i: number }>({ idField: 'i', fields: ['text'], storeFields: [] });
  ms.addAll(messages.map((m, i) => ({ ...m, i })));
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const r of ms.search(q, { prefix: true, fuzzy: 0.2, combineWith: 'AND' })) {
    const m = messages[r.id as number]!;
    if (seen.has(m.session)) continue;
    seen.add(m.session);
    hits.push({ session: m.session, title: m.title, excerpt: excerptOf(m.text, r.terms) });
    if (hits.length >= limit) break;
  }
  return hits;
}
