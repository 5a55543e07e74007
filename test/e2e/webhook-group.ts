// The setup of the webhook restart tests: a whole boxbot that can be restarted on the same data,
// with a Telegram group (its emulator) for webhook jobs to post to, and a GitHub-signed POST to
// /hooks/github-push.
import { after, before } from 'node:test';
import { signatureFor } from '../../src/scheduler/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';

/** A restartable boxbot, the Telegram emulator with the group, and a signed hook request. */
export interface WebhookGroup {
  tg: TelegramEmulator;
  bb: RestartableBoxbot;
  /** POSTs `body` to /hooks/github-push, signed with the secret, as delivery `delivery`. */
  post(body: string, delivery: string): Promise<Response>;
  close(): Promise<void>;
}

/** Starts the emulator with supergroup `group` and boxbot with `secret` as GITHUB_WEBHOOK_SECRET. */
export async function startWebhookGroup(secret: string, group: number): Promise<WebhookGroup> {
  const tg = await startTelegramEmulator();
  tg.addChat({ id: group, type: 'supergroup', title: 'ops' });
  let bb: RestartableBoxbot;
  try {
    bb = await bootBoxbot(
      { channels: { telegram: { apiRoot: tg.apiRoot } } },
      { TELEGRAM_BOT_TOKEN: tg.token, GITHUB_WEBHOOK_SECRET: secret },
    );
  } catch (e) {
    await tg.close();
    throw e;
  }
  return {
    tg,
    bb,
    post: (body, delivery) =>
      fetch(`${bb.app.url}/hooks/github-push`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-GitHub-Delivery': delivery,
          'X-Hub-Signature-256': signatureFor(secret, body),
        },
        body,
      }),
    async close() {
      await bb.close();
      await tg.close();
    },
  };
}

/** Starts the group before a file's tests and closes it after them; the function gives it to a test. */
export function webhookGroupHooks(secret: string, group: number): () => WebhookGroup {
  let g: WebhookGroup | undefined;
  before(async () => {
    g = await startWebhookGroup(secret, group);
  });
  after(async () => {
    await g?.close();
  });
  return () => {
    if (!g) throw new Error('the webhook group did not start');
    return g;
  };
}
