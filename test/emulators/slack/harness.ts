// The shared adapter contract's harness over the Slack emulator, in Socket Mode or HTTP Events
// mode (the route served the way the gateway mounts it).
import { createSlackAdapter, type SlackAdapterOptions } from '../../../src/adapters/slack/index.ts';
import { unescapeSlackText } from '../../../src/adapters/slack/format.ts';
import type { ChannelAdapter } from '../../../src/adapters/types.ts';
import type { AdapterHarness } from '../../adapters/contract.ts';
import { startSlackEmulator, type SlackEmulator, type SlackEmulatorOptions } from './emulator.ts';
import { eventCallback } from './payloads.ts';
import { serveRoutes, type RouteServer } from './route-server.ts';

/** The DM and channel the harness talks in. */
export const DM_CHANNEL = 'D0DM000001';
export const GROUP_CHANNEL = 'C0GENERAL1';

/** A harness plus the emulator and adapter behind it, for platform-specific tests. */
export interface SlackHarness extends AdapterHarness {
  emu: SlackEmulator;
  adapter: ChannelAdapter;
}

/** Starts an emulator and an adapter wired to it (not started: the caller calls adapter.start). */
export async function slackHarness(mode: 'socket' | 'http', over: { emulator?: SlackEmulatorOptions; adapter?: Partial<SlackAdapterOptions> } = {}): Promise<SlackHarness> {
  const emu = await startSlackEmulator({ delivery: mode, ...over.emulator });
  const adapter = createSlackAdapter({
    mode,
    botToken: emu.botToken,
    ...(mode === 'socket' ? { appToken: emu.appToken } : { signingSecret: emu.signingSecret }),
    apiUrl: emu.apiUrl,
    ...over.adapter,
  });
  let routes: RouteServer | undefined;
  if (mode === 'http') {
    routes = await serveRoutes(adapter.routes());
    emu.setEventsUrl(`${routes.origin}/webhooks/slack`);
  }
  const team = emu.ids.teamId;
  return {
    emu,
    adapter,
    async userSays(o) {
      await emu.userSays({
        channel: o.direct ? DM_CHANNEL : GROUP_CHANNEL,
        text: o.text,
        ...(o.mention ? { mention: true } : {}),
        ...(o.userId ? { user: o.userId } : {}),
        ...(o.userName ? { userName: o.userName } : {}),
        ...(o.fromBot ? { botId: 'B0OTHERBOT', user: 'U0OTHERBOT' } : {}),
        ...(o.threadId ? { threadTs: o.threadId } : {}),
      });
    },
    async sendMalformed() {
      // An event with wrong field types, and (in Socket Mode) an envelope with no event at all.
      await emu.deliverBody(eventCallback(emu.ids, { type: 'message', channel: 42, user: null, text: { bold: true }, ts: [] }));
      await emu.deliverBody({ type: 'event_callback', team_id: team, event_id: 'Ev0MALFORM' });
    },
    directTarget: () => ({ chatId: DM_CHANNEL, conversationKey: `slack:${team}:${DM_CHANNEL}` }),
    groupTarget: () => ({ chatId: GROUP_CHANNEL, conversationKey: `slack:${team}:${GROUP_CHANNEL}` }),
    botMessages: () =>
      emu.botMessages().map((m) => ({ chatId: m.channel, ...(m.threadTs ? { threadId: m.threadTs } : {}), messageId: m.ts, text: unescapeSlackText(m.text), edits: m.edits })),
    typingCount: () => emu.api.count('assistant.threads.setStatus'),
    rateLimitNext: (n, retryAfterMs) => emu.rateLimitNext(n, Math.ceil(retryAfterMs / 1000)),
    async close() {
      await routes?.close();
      await emu.close();
    },
  };
}
