// MCP servers per policy: the top level names servers for every conversation; a platform, chat or
// user override adds servers, replaces one of the same name, or turns one off (`enabled: false`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpHub } from '../../src/agent/mcp/index.ts';
import { mcpConnection } from '../../src/config/mcp.ts';
import { configSchema } from '../../src/config/schema.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';

const config = configSchema.parse({
  mcp: { servers: { kb: { url: 'http://127.0.0.1:9/mcp' } } },
  channels: {
    telegram: {
      chats: { '-1': { mcp: { servers: { kb: { enabled: false } } } } },
      users: { '42': { mcp: { servers: { gh: { url: 'http://127.0.0.1:9/gh', level: 'ReadOnly' } } } } },
    },
  },
});
const msg = (chatId: string, userId: string) => ({ platform: 'telegram', chatId, userId }) as const;

test('servers merge by name down the policy levels; enabled: false turns one off', async () => {
  const hub = createMcpHub({ connectionOf: (n, s) => mcpConnection(n, s, {}) });
  const names = async (chatId: string, userId: string) =>
    (await hub.inspect(resolvePolicy(config, msg(chatId, userId)).mcp, { offline: true })).map((r) => r.name);
  assert.deepEqual(await names('5', '7'), ['kb']);
  assert.deepEqual(await names('-1', '7'), [], 'the chat turned kb off');
  assert.deepEqual(await names('5', '42'), ['gh', 'kb'], 'the user override adds gh');
  assert.deepEqual(await names('-1', '42'), ['gh']);
  await hub.close();
});

test('a server entry needs exactly one of url and command, and a name fit for a tool prefix', () => {
  const valid = (servers: unknown) => configSchema.safeParse({ mcp: { servers } }).success;
  assert.equal(valid({ kb: {} }), false);
  assert.equal(valid({ kb: { url: 'http://x', command: 'node' } }), false);
  assert.equal(valid({ my_kb: { url: 'http://x' } }), false, 'no underscores: `__` separates server and tool');
  assert.equal(valid({ kb: { command: 'node', args: ['s.js'], env: { TOKEN: 'KB_TOKEN' } } }), true);
});
