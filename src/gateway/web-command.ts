// `/web`: a one-time sign-in link for the web chat, sent privately to whoever asks in Telegram,
// Discord or Slack (a private chat, a DM, an ephemeral message), never into the chat itself nor
// through the outbox (which keeps what it sends). In the web chat it says who the browser is;
// `/web logout` there is handled by the web adapter, which alone knows the browser's session.
import { type InboundMessage, userKeyOf } from '../adapters/index.ts';
import { issueLoginLink, type WebSessionSource } from '../adapters/web/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ChatCommand } from '../runner/chat-command.ts';

/** What `/web` needs. */
export interface WebCommandOptions {
  logins: Pick<WebSessionSource, 'addLogin'>;
  /** Where browsers reach the gateway (`http.publicUrl`, else the server's own address). */
  publicUrl: () => string;
  /** Sends `text` to the speaker of `message` only; rejects when the platform cannot. */
  sendPrivate(message: InboundMessage, text: string): Promise<void>;
  log: Logger;
  now?: () => number;
}

/** Why a private message may not arrive, per platform. */
const PRIVATE_HINT: Record<string, string> = {
  telegram: 'open a private chat with me and press Start, then send /web again',
  discord: 'allow direct messages from this server’s members, then send /web again',
  slack: 'send /web again in a channel I am in',
};

/** The `/web` chat command. */
export function webCommand(o: WebCommandOptions): ChatCommand {
  return {
    name: 'web',
    description: 'a private link that signs you in to the web chat',
    args: { name: 'action', description: 'logout: end this browser’s web session', usage: '[logout]' },
    access: 'read',
    async run({ message, arg, reply }) {
      if (message.platform === 'web') {
        if (arg?.toLowerCase() === 'logout') return reply('This browser is not signed in: it is this machine’s user.');
        return reply(
          message.signedInAs
            ? `You are signed in as ${message.signedInAs}. /web logout ends this browser's session.`
            : 'This browser is the local user. To use the web chat as your Telegram, Discord or Slack user, ' +
                'send /web to the bot there.',
        );
      }
      if (arg?.toLowerCase() === 'logout') return reply('/web logout works in the web chat: it ends that session.');
      if (message.platform === 'terminal') return reply('/web sends a sign-in link in Telegram, Discord or Slack.');
      const identity = userKeyOf(message);
      const { url } = await issueLoginLink(o.logins, identity, o.publicUrl(), o.now);
      try {
        await o.sendPrivate(
          message,
          `Your link to the web chat, as ${identity}: ${url}\nIt works once, for 10 minutes. Do not share it.`,
        );
      } catch (e) {
        o.log.info({ platform: message.platform, err: errorMessage(e) }, 'web sign-in link not sent privately');
        return reply(
          `I could not send you a private message, so there is no link here: ${PRIVATE_HINT[message.platform] ?? ''}.`,
        );
      }
      return reply(
        message.platform === 'slack'
          ? 'I sent you a sign-in link that only you can see.'
          : 'I sent you a sign-in link in a private message.',
      );
    },
  };
}
