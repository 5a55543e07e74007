// The shared adapter contract's harness over the Slack emulator, in Socket Mode or HTTP Events
// mode (the route served the way the gateway mounts it).
import { after, before, beforeEach } from 'node:test';
import type { ChannelAdapter, InboundMessage } from '../../../src/adapters/index.ts';
import { createSlackAdapter, type SlackAdapterOptions, unescapeSlackText } from '../../../src/adapters/slack/index.ts';
import { sniffType } from '../../../src/core/sniff-type.ts';
import type { AdapterHarness } from '../../adapters/contract.ts';
import {
  type InteractionDelivery,
  type SlackEmulator,
  type SlackEmulatorOptions,
  startSlackEmulator,
} from './emulator.ts';
import { buttonsOf } from './interactivity.ts';
import { eventCallback } from './payloads.ts';
import { type RouteServer, serveRoutes } from './route-server.ts';

/** The DM and channel the harness talks in. */
export const DM_CHANNEL = 'D0DM000001';
export const GROUP_CHANNEL = 'C0GENERAL1';

/** A harness plus the emulator and adapter behind it, for platform-specific tests. */
export interface SlackHarness extends AdapterHarness {
  emu: SlackEmulator;
  adapter: ChannelAdapter;
}

/** Starts an emulator and an adapter wired to it (not started: the caller calls adapter.start). */
export async function slackHarness(
  mode: 'socket' | 'http',
  over: { emulator?: SlackEmulatorOptions; adapter?: Partial<SlackAdapterOptions> } = {},
): Promise<SlackHarness> {
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
  let lastPress: InteractionDelivery | undefined;
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
    async userSendsFile(f) {
      await emu.userSharesFile({
        channel: DM_CHANNEL,
        name: f.name,
        mimetype: f.mimeType,
        bytes: f.bytes,
        ...(f.caption ? { text: f.caption } : {}),
        ...(f.kind === 'voice' ? { voice: true } : {}),
      });
    },
    async sendMalformed() {
      // An event with wrong field types, and (in Socket Mode) an envelope with no event at all.
      await emu.deliverBody(
        eventCallback(emu.ids, { type: 'message', channel: 42, user: null, text: { bold: true }, ts: [] }),
      );
      await emu.deliverBody({ type: 'event_callback', team_id: team, event_id: 'Ev0MALFORM' });
    },
    directTarget: () => ({ chatId: DM_CHANNEL, conversationKey: `slack:${team}:${DM_CHANNEL}` }),
    groupTarget: () => ({ chatId: GROUP_CHANNEL, conversationKey: `slack:${team}:${GROUP_CHANNEL}` }),
    botMessages: () =>
      emu.botMessages().map((m) => ({
        chatId: m.channel,
        ...(m.threadTs ? { threadId: m.threadTs } : {}),
        messageId: m.ts,
        text: unescapeSlackText(m.text),
        edits: m.edits,
      })),
    typingCount: () => emu.api.count('assistant.threads.setStatus'),
    rateLimitNext: (n, retryAfterMs) => emu.rateLimitNext(n, Math.ceil(retryAfterMs / 1000)),
    controls: {
      buttonsOf: (ts) => {
        const m = emu.workspace.find(DM_CHANNEL, ts);
        return m ? buttonsOf(m).map((b) => ({ id: b.actionId, label: b.label })) : [];
      },
      async press(o) {
        lastPress = await emu.pressButton({
          channel: DM_CHANNEL,
          ts: o.messageId,
          actionId: o.buttonId,
          user: o.userId,
        });
      },
      async redeliverLastPress() {
        if (lastPress) await emu.redeliverInteraction(lastPress);
      },
      privateAnswers: () => emu.workspace.ephemeral.map((e) => ({ userId: e.user, text: unescapeSlackText(e.text) })),
      // Slack has no API for an app's slash commands: one `/boxbot` command is declared in the app's manifest.
      registeredCommands: () => [],
      async runCommand(o) {
        await emu.slashCommand({
          channel: DM_CHANNEL,
          text: o.arg ? `${o.name} ${o.arg}` : o.name,
          user: o.userId,
        });
      },
    },
    botFiles: () =>
      emu.botFiles().map((f) => ({
        chatId: f.channel,
        messageId: f.id,
        name: f.name,
        bytes: f.bytes,
        ...(f.comment ? { caption: f.comment } : {}),
        // Slack previews a file inline when its content is an image.
        shownAs: sniffType(f.bytes).family === 'image' ? ('image' as const) : ('file' as const),
      })),
    rateLimitFilesNext: (n, retryAfterMs) =>
      emu.rateLimitNext(n, Math.ceil(retryAfterMs / 1000), ['files.getUploadURLExternal']),
    async close() {
      await routes?.close();
      await emu.close();
    },
  };
}

/** What a started adapter's sink received, and how the next sink calls behave. */
export interface SinkRecorder {
  /** The harness (set once the suite's `before` ran). */
  readonly h: SlackHarness;
  /** Messages the sink accepted, in order (cleared before each test). */
  readonly got: InboundMessage[];
  /** Sink calls, accepted or not (reset before each test). */
  readonly calls: number;
  /** What the next sink calls do before accepting (undefined: accept at once; reset before each test). */
  behaviour: ((m: InboundMessage) => Promise<void>) | undefined;
  /** The recording sink itself, to start the adapter again after a test stopped it. */
  readonly record: (m: InboundMessage) => Promise<void>;
}

/**
 * For a `describe` block: starts a harness and its adapter with a recording sink before the
 * tests, stops it after them, and clears the record before each test.
 */
export function recordingSlackAdapter(
  mode: 'socket' | 'http',
  over: Parameters<typeof slackHarness>[1] = {},
): SinkRecorder {
  let harness: SlackHarness | undefined;
  let calls = 0;
  const got: InboundMessage[] = [];
  const recorder: SinkRecorder = {
    get h() {
      if (!harness) throw new Error('the Slack harness is not started yet (use it inside a test)');
      return harness;
    },
    got,
    get calls() {
      return calls;
    },
    behaviour: undefined,
    async record(m) {
      calls++;
      if (recorder.behaviour) await recorder.behaviour(m);
      got.push(m);
    },
  };
  before(async () => {
    harness = await slackHarness(mode, over);
    await harness.adapter.start(recorder.record);
  });
  after(async () => {
    await harness?.adapter.stop();
    await harness?.close();
  });
  beforeEach(() => {
    got.length = 0;
    calls = 0;
    recorder.behaviour = undefined;
  });
  return recorder;
}
