// The in-chat control scenarios on the web chat (no buttons there yet: approvals are typed).
import { controlScenarios } from './control-scenarios.ts';
import { WebChatClient } from './harness.ts';

// One browser throughout, as one person: each browser is its own user (its budget, its usage).
let browser: string | undefined;

controlScenarios({
  platform: 'web',
  buttons: false,
  config: () => ({ channel: { enabled: true } }),
  async open(app) {
    const c = await WebChatClient.open(app.url, undefined, browser);
    browser = c.cookie;
    return {
      conversationKey: `web:${c.session}`,
      say: async (text) => {
        const status = await c.say(text);
        if (status !== 202) throw new Error(`the web chat refused the message: HTTP ${status}`);
      },
      finals: () => c.messages(),
      close: () => c.close(),
    };
  },
});
