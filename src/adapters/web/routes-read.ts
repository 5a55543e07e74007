// What a tab reads: its session's live event stream, the session's recorded history (what it
// showed, or an older chat's stored turns), the browser's list of chats and search across them.
// Every route answers only the session's owner.
import type { Express } from 'express';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { DisplayLog } from './display-log.ts';
import type { EventHub } from './events.ts';
import type { HttpGuard } from './http-guard.ts';
import { MAX_QUERY, type SearchedMessage, searchableTexts, searchMessages } from './search.ts';
import { type ConversationSource, sessionsOf, transcriptOf } from './transcript.ts';

/** What the read routes need from the adapter. */
export interface ReadRoutes {
  guard: HttpGuard;
  hub: EventHub;
  display: DisplayLog | undefined;
  conversations: ConversationSource | undefined;
  log: Logger;
}

/** Mounts the read routes under `base`. */
export function attachReadRoutes(app: Express, base: string, o: ReadRoutes): void {
  const { guard, display, conversations, log } = o;
  app.get(`${base}/chat/events`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const id = guard.ownedSession(req, res, viewer);
    if (id) o.hub.stream(req, res, id);
  });
  // The session's stored transcript: after a restart the in-memory backlog is gone. The page
  // draws it, then replays this process's backlog, skipping the turns the transcript holds
  // (events name the user message they answer), so a turn still running shows up too.
  app.get(`${base}/chat/history`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const id = guard.ownedSession(req, res, viewer);
    if (!id) return;
    res.set('Cache-Control', 'no-store');
    try {
      // What this session showed, when it was recorded; else (older chats) the stored conversation.
      const page = await display?.read(id);
      if (page?.events.length) return void res.json(page);
      if (!conversations) return void res.json({ entries: [] });
      const c = await conversations.get(`web:${id}`);
      res.json({ entries: transcriptOf(c?.messages ?? []) });
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'web chat history not readable');
      res.json({ entries: [], note: 'The saved history of this chat could not be read.' });
    }
  });
  app.get(`${base}/chat/sessions`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const owner = guard.ownerOf(viewer, res);
    if (!owner) return;
    res.set('Cache-Control', 'no-store');
    if (!conversations) return void res.json({ sessions: [] });
    try {
      res.json({ sessions: await sessionsOf(conversations, owner) });
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'web chat list not readable');
      res.status(503).json({ error: 'the conversation list could not be read' });
    }
  });
  // Search across this user's own chats (the same ones the list shows), newest 200 at most.
  app.get(`${base}/chat/search`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const owner = guard.ownerOf(viewer, res);
    if (!owner) return;
    res.set('Cache-Control', 'no-store');
    const q = String(req.query.q ?? '');
    if (q.length > MAX_QUERY) return void res.status(400).json({ error: `q: at most ${MAX_QUERY} characters` });
    if (!conversations) return void res.json({ hits: [] });
    try {
      const messages: SearchedMessage[] = [];
      for (const s of await sessionsOf(conversations, owner, 200)) {
        let texts = searchableTexts((await display?.read(s.session))?.events ?? []);
        if (!texts.length) {
          const c = await conversations.get(`web:${s.session}`);
          texts = transcriptOf(c?.messages ?? []).flatMap((e) => (e.role === 'tools' ? [] : [e.text]));
        }
        for (const text of texts) messages.push({ session: s.session, title: s.title, text });
      }
      res.json({ hits: searchMessages(messages, q) });
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'web chat search failed');
      res.status(503).json({ error: 'the conversations could not be searched' });
    }
  });
}
