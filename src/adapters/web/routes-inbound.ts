// What a tab sends: messages (with the files it uploaded) and button presses. The speaker is the
// signed-in user, else the browser that owns the session; both go to the gateway's one sink, so
// they take the normal path (dedupe, policy, queue, budget, approvals).
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import express from 'express';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { ButtonMemory } from '../button-memory.ts';
import type { InboundSink } from '../types.ts';
import type { DisplayLog } from './display-log.ts';
import type { EventHub } from './events.ts';
import type { WebFiles } from './files.ts';
import type { HttpGuard } from './http-guard.ts';
import { normalizeWebMessage, normalizeWebPress } from './normalize.ts';
import { describeFiles } from './routes-files.ts';
import type { SignIn } from './sign-in.ts';

/** What the inbound routes need from the adapter. */
export interface InboundRoutes {
  guard: HttpGuard;
  signIn: SignIn | undefined;
  hub: EventHub;
  /** What each session showed: an Edit or Regenerate must name the last user message in it. */
  display: DisplayLog | undefined;
  files: WebFiles | undefined;
  maxUpload: number;
  /** Buttons shown under the bot's messages, by session: a press is taken only for one of them. */
  buttons: ButtonMemory;
  /** The gateway's sink while the adapter runs. */
  sink(): InboundSink | undefined;
  log: Logger;
}

/** `/web logout`, as typed in the web chat. */
const LOGOUT = /^\/web(?:@\S+)?\s+logout\s*$/i;
/** The note a message the gateway did not take gets (on the page, and in the session's record). */
export const NOT_ACCEPTED = 'Not sent: not accepted, try again';

/** Mounts the message and press routes under `base`. */
export function attachInboundRoutes(app: Express, base: string, o: InboundRoutes): void {
  const { guard, signIn, hub, files, log } = o;
  app.post(`${base}/chat/messages`, express.json({ limit: '256kb' }), async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const result = normalizeWebMessage(req.body, new Date());
    if (result.kind !== 'message') return void res.status(400).json({ error: result.reason });
    const owner = guard.owns(viewer, res, result.message.chatId);
    if (!owner) return;
    // `/web logout` ends this browser's session here: only the web chat knows which one it is.
    if (viewer.sessionId && LOGOUT.test(result.message.text) && signIn) {
      await signIn.logout(req, res);
      return void res.status(200).json({ loggedOut: true });
    }
    // The speaker is the signed-in user, else the browser that owns the session.
    let msg = { ...result.message, userId: owner, ...(viewer.identity ? { signedInAs: viewer.identity } : {}) };
    const sink = o.sink();
    if (!sink) return void res.status(503).json({ error: 'the web chat is not running' });
    const described = await describeFiles(o, msg.chatId, msg.attachments);
    if ('error' in described) return void res.status(described.status).json({ error: described.error });
    msg = { ...msg, attachments: described.ok };
    // Edit and Regenerate replace the conversation's last turn only: the page offers them there.
    const replaced = msg.replacesTurn?.slice(msg.replacesTurn.lastIndexOf(':') + 1);
    if (replaced && o.display && (await o.display.lastUserMessage(msg.chatId)) !== replaced)
      return void res.status(409).json({ error: 'only your last message can be edited or regenerated' });
    try {
      // Sent with a message: kept for the full retention from now on (before the host reads them).
      await files?.attach(
        msg.chatId,
        described.refs.map((r) => r.id),
      );
      // Echoed so other tabs and a reloaded page show the user's side too; before the sink, as
      // the page drew it, so a command answered at once (/stop) comes after it in the history.
      hub.publish(msg.chatId, {
        type: 'user',
        id: msg.messageId!,
        text: msg.text,
        ...(described.refs.length ? { files: described.refs } : {}),
      });
      await sink(msg);
      // The turn it replaces leaves the page once the gateway took the message (refused, it stays).
      if (replaced) hub.publish(msg.chatId, { type: 'replace', of: replaced });
      res.status(202).json({ accepted: true });
    } catch (e) {
      log.error({ err: errorMessage(e) }, 'web message not accepted');
      // The echo above is in the record: so is the refusal, so a reload does not show it as sent.
      hub.publish(msg.chatId, { type: 'note', text: NOT_ACCEPTED });
      res.status(503).json({ error: 'not accepted, try again', noted: true });
    }
  });
  app.post(`${base}/chat/press`, express.json({ limit: '16kb' }), async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const result = normalizeWebPress(req.body, randomBytes(9).toString('base64url'), new Date());
    if (result.kind !== 'message') return void res.status(400).json({ error: result.reason });
    const owner = guard.owns(viewer, res, result.message.chatId);
    if (!owner) return;
    // Whoever decides an approval here is the session's user (approvers: "requester").
    const msg = { ...result.message, userId: owner, ...(viewer.identity ? { signedInAs: viewer.identity } : {}) };
    const shown = o.buttons.get(msg.chatId, msg.action!.messageId!);
    if (!shown?.some((b) => b.id === msg.action!.id))
      return void res.status(404).json({ error: 'this button is no longer offered' });
    const sink = o.sink();
    if (!sink) return void res.status(503).json({ error: 'the web chat is not running' });
    try {
      await sink(msg);
      res.status(202).json({ accepted: true });
    } catch (e) {
      log.error({ err: errorMessage(e) }, 'web button press not accepted');
      res.status(503).json({ error: 'not accepted, try again' });
    }
  });
}
