// The in-chat control scenarios on Slack: boxbot connects Bolt (Socket Mode) to the Slack emulator;
// control commands run as the `/boxbot <command> [arg]` slash command, approvals show block
// buttons, and a press (block_actions) by someone other than the approver gets an ephemeral refusal.
import { unescapeSlackText } from '../../src/adapters/slack/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { buttonsOf } from '../emulators/slack/interactivity.ts';
import { controlScenarios } from './control-scenarios.ts';

let emu: SlackEmulator;
const USER = 'U0CTL00001';
/** Another member of the chat, who is no approver. */
const OTHER = 'U0CTL00999';

controlScenarios({
  platform: 'slack',
  buttons: true,
  timeoutUser: 'U0CTL00002',
  async setup() {
    emu = await startSlackEmulator({ delivery: 'socket' });
    emu.workspace.addUser(OTHER, 'other');
  },
  config: () => ({ channel: { apiUrl: emu.apiUrl, mode: 'socket' } }),
  env: () => ({ SLACK_BOT_TOKEN: emu.botToken, SLACK_APP_TOKEN: emu.appToken }),
  async open(_app, as) {
    const user = as ?? USER;
    emu.workspace.addUser(user, `user${user.slice(-2)}`);
    const channel = `D${user.slice(1)}`;
    const mine = () => emu.botMessages().filter((m) => m.channel === channel);
    const seen = mine().length;
    return {
      conversationKey: `slack:${emu.ids.teamId}:${channel}`,
      say: async (text) => {
        await emu.userSays({ channel, user, text });
      },
      async command(name, arg) {
        await emu.slashCommand({ channel, user, text: arg ? `${name} ${arg}` : name });
      },
      finals: () =>
        mine()
          .slice(seen)
          .map((m) => unescapeSlackText(m.text)),
      async press(label, by = 'self') {
        for (const m of mine().reverse()) {
          const button = buttonsOf(m).find((b) => b.label === label);
          if (!button) continue;
          await emu.pressButton({ channel, ts: m.ts, actionId: button.actionId, user: by === 'self' ? user : OTHER });
          return;
        }
        throw new Error(`no ${label} button in channel ${channel}`);
      },
      privateToOther: () =>
        emu.workspace.ephemeral.filter((e) => e.user === OTHER).map((e) => unescapeSlackText(e.text)),
      close: () => undefined,
    };
  },
  teardown: () => emu.close(),
});
