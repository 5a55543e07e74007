// resolvePolicy and admit as tables: platform defaults, then chat/channel (and thread) overrides,
// then user overrides; deny lists accumulate; allowFrom and requireMention decide admission.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { admit, narrowPolicy, type ResolvedPolicy, resolvePolicy } from '../../src/runner/policy.ts';

const msg = (platform: string, over: { chatId?: string; threadId?: string; userId?: string } = {}) =>
  ({ platform, chatId: 'c1', userId: 'u1', ...over }) as Parameters<typeof resolvePolicy>[1];

describe('resolvePolicy', () => {
  const defaultsWebTerminalTitle =
    'defaults: web and terminal are full, chat platforms read-only; mention required; the sandbox network allow-list';
  test(defaultsWebTerminalTitle, () => {
    const config = configSchema.parse({ sandbox: { network: { allow: ['example.com'] } } });
    const table: [string, ResolvedPolicy['access']][] = [
      ['web', 'full'],
      ['terminal', 'full'],
      ['telegram', 'read-only'],
      ['discord', 'read-only'],
      ['slack', 'read-only'],
      ['somewhere-else', 'read-only'],
    ];
    for (const [platform, access] of table) {
      assert.deepEqual(
        resolvePolicy(config, msg(platform)),
        { access, requireMention: true, tools: {}, network: { allow: ['example.com'] } },
        platform,
      );
    }
  });

  test('the configured model is the default model', () => {
    assert.equal(
      resolvePolicy(configSchema.parse({ model: 'openai/gpt-4o-mini' }), msg('telegram')).model,
      'openai/gpt-4o-mini',
    );
    assert.equal('model' in resolvePolicy(configSchema.parse({}), msg('telegram')), false);
  });

  const config = configSchema.parse({
    model: 'openai/gpt-4o-mini',
    channels: {
      telegram: {
        access: 'chat-only',
        allowFrom: ['u1', 'u2'],
        tools: { deny: ['bash'] },
        chats: {
          '-100': {
            access: 'full',
            requireMention: false,
            tools: { allow: ['read', 'bash'], deny: ['web_fetch'] },
            systemPrompt: 'group rules',
          },
          '-100:7': { model: 'anthropic/claude', network: { allow: ['api.example.com'] } },
          '-200': { allowFrom: ['*'] },
        },
        users: { u2: { access: 'read-only', model: 'openai/gpt-4o' } },
      },
      slack: { channels: { C9: { access: 'full' } } },
      discord: { channels: { D1: { requireMention: false } } },
    },
  });
  const cases: { name: string; m: Parameters<typeof resolvePolicy>[1]; want: Partial<ResolvedPolicy> }[] = [
    {
      name: 'platform override',
      m: msg('telegram', { chatId: '-1' }),
      want: {
        access: 'chat-only',
        allowFrom: ['u1', 'u2'],
        requireMention: true,
        tools: { deny: ['bash'] },
        model: 'openai/gpt-4o-mini',
      },
    },
    {
      name: 'chat override over the platform; deny lists accumulate (a chat cannot lift a platform deny)',
      m: msg('telegram', { chatId: '-100' }),
      want: {
        access: 'full',
        allowFrom: ['u1', 'u2'],
        requireMention: false,
        tools: { allow: ['read', 'bash'], deny: ['bash', 'web_fetch'] },
        systemPrompt: 'group rules',
      },
    },
    {
      name: 'thread override over the chat',
      m: msg('telegram', { chatId: '-100', threadId: '7' }),
      want: {
        access: 'full',
        model: 'anthropic/claude',
        network: { allow: ['api.example.com'] },
        tools: { allow: ['read', 'bash'], deny: ['bash', 'web_fetch'] },
      },
    },
    {
      name: 'user override last',
      m: msg('telegram', { chatId: '-100', userId: 'u2' }),
      want: { access: 'read-only', model: 'openai/gpt-4o', requireMention: false },
    },
    { name: 'a chat replaces allowFrom', m: msg('telegram', { chatId: '-200' }), want: { allowFrom: ['*'] } },
    {
      name: 'slack channel override',
      m: msg('slack', { chatId: 'C9' }),
      want: { access: 'full', requireMention: true },
    },
    {
      name: 'discord channel override',
      m: msg('discord', { chatId: 'D1' }),
      want: { access: 'read-only', requireMention: false },
    },
    {
      name: 'another platform is untouched by telegram overrides',
      m: msg('web', { chatId: '-100', userId: 'u2' }),
      want: { access: 'full', requireMention: true, tools: {} },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const p = resolvePolicy(config, c.m);
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(p[k as keyof ResolvedPolicy], v, k);
    });
  }
});

describe('admit', () => {
  const base: ResolvedPolicy = { access: 'read-only', requireMention: true, tools: {}, network: { allow: [] } };
  const m = (over: Partial<{ userId: string; chatId: string; isDirect: boolean; mentionsBot: boolean }> = {}) => ({
    userId: 'u1',
    chatId: 'c1',
    isDirect: false,
    mentionsBot: false,
    text: 'hi',
    ...over,
  });
  const cases: {
    name: string;
    policy: ResolvedPolicy;
    m: ReturnType<typeof m>;
    replyToStrangers?: boolean;
    want: ReturnType<typeof admit>;
  }[] = [
    { name: 'a direct message is admitted', policy: base, m: m({ isDirect: true }), want: { admitted: true } },
    {
      name: 'a group message with a mention is admitted',
      policy: base,
      m: m({ mentionsBot: true }),
      want: { admitted: true },
    },
    {
      name: 'a group message without a mention is not addressed (silence)',
      policy: base,
      m: m(),
      want: { admitted: false, reason: 'not-addressed', reply: false },
    },
    {
      name: 'without requireMention every group message is admitted',
      policy: { ...base, requireMention: false },
      m: m(),
      want: { admitted: true },
    },
    {
      name: 'allowFrom by user',
      policy: { ...base, allowFrom: ['u1'] },
      m: m({ isDirect: true }),
      want: { admitted: true },
    },
    {
      name: 'allowFrom by chat',
      policy: { ...base, allowFrom: ['c1'] },
      m: m({ userId: 'u9', isDirect: true }),
      want: { admitted: true },
    },
    {
      name: 'allowFrom *',
      policy: { ...base, allowFrom: ['*'] },
      m: m({ userId: 'u9', isDirect: true }),
      want: { admitted: true },
    },
    {
      name: 'a stranger writing directly is told',
      policy: { ...base, allowFrom: ['u1'] },
      m: m({ userId: 'u9', isDirect: true }),
      want: { admitted: false, reason: 'not-allowed', reply: true },
    },
    {
      name: 'a stranger mentioning the bot in a group is told',
      policy: { ...base, allowFrom: ['u1'] },
      m: m({ userId: 'u9', mentionsBot: true }),
      want: { admitted: false, reason: 'not-allowed', reply: true },
    },
    {
      name: 'a stranger not addressing the bot gets silence',
      policy: { ...base, allowFrom: ['u1'] },
      m: m({ userId: 'u9' }),
      want: { admitted: false, reason: 'not-allowed', reply: false },
    },
    {
      name: 'replyToStrangers off: silence',
      policy: { ...base, allowFrom: ['u1'] },
      m: m({ userId: 'u9', isDirect: true }),
      replyToStrangers: false,
      want: { admitted: false, reason: 'not-allowed', reply: false },
    },
    {
      name: 'an empty allowFrom admits no one',
      policy: { ...base, allowFrom: [] },
      m: m({ isDirect: true }),
      want: { admitted: false, reason: 'not-allowed', reply: true },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(admit(c.policy, c.m, { replyToStrangers: c.replyToStrangers ?? true }), c.want);
    });
  }
});

describe('budget and approvals', () => {
  test('a chat override changes only the fields it names', () => {
    const config = configSchema.parse({
      channels: {
        telegram: {
          budget: { conversationUsdPerDay: 5, userUsdPerDay: 10 },
          approvals: { levels: ['Execute'], approvers: ['boss'] },
          chats: { c1: { budget: { conversationUsdPerDay: 1 }, approvals: { afterUntrusted: true } } },
        },
      },
    });
    const p = resolvePolicy(config, msg('telegram'));
    assert.deepEqual(p.budget, { conversationUsdPerDay: 1, userUsdPerDay: 10 });
    assert.deepEqual(p.approvals, { levels: ['Execute'], approvers: ['boss'], afterUntrusted: true });
    assert.equal(resolvePolicy(config, msg('discord')).approvals, undefined);
  });

  test('what a job or sub-agent carries keeps the stricter approval rules of both policies', () => {
    const base = { access: 'full' as const, tools: {}, network: { allow: [] } };
    const n = narrowPolicy(
      { ...base, approvals: { levels: ['Write'], allowEscalation: true, timeoutMs: 1000 } },
      { ...base, approvals: { tools: ['bash'], afterUntrusted: true, timeoutMs: 500 } },
    );
    assert.deepEqual(n.approvals, { levels: ['Write'], tools: ['bash'], timeoutMs: 500, afterUntrusted: true });
    assert.deepEqual(narrowPolicy(base, { ...base, approvals: { levels: ['Execute'] } }).approvals, {
      levels: ['Execute'],
    });
    // Approvers: only those both lists name (possibly nobody), never the looser list alone.
    const approvers = (a: string[], b: string[]) =>
      narrowPolicy({ ...base, approvals: { approvers: a } }, { ...base, approvals: { approvers: b } }).approvals
        ?.approvers;
    assert.deepEqual(approvers(['intern', 'boss'], ['boss']), ['boss']);
    assert.deepEqual(approvers(['intern'], ['boss']), []);
  });

  test('a channel with a manager runs managed; its other channels and its users keep the plain agent', () => {
    const config = configSchema.parse({
      agents: { writer: { isolation: 'copy' } },
      channels: { slack: { channels: { C1: { manager: { executors: ['writer'] } } } } },
    });
    assert.deepEqual(resolvePolicy(config, msg('slack', { chatId: 'C1' })).manager, {
      executors: ['writer'],
      maxConcurrent: 2,
    });
    assert.equal(resolvePolicy(config, msg('slack', { chatId: 'C2' })).manager, undefined);
  });

  test('bad budget and approval settings are refused at start, naming the field', () => {
    assert.throws(
      () => configSchema.parse({ channels: { telegram: { budget: { userUsdPerDay: -1 } } } }),
      /userUsdPerDay/,
    );
    assert.throws(
      () => configSchema.parse({ channels: { telegram: { approvals: { levels: ['Everything'] } } } }),
      /levels/,
    );
  });
});

describe('a web chat browser signed in as a platform user', () => {
  const config = configSchema.parse({
    channels: {
      telegram: {
        access: 'full',
        allowFrom: ['4242'],
        chats: { '4242': { access: 'chat-only' } },
        users: { '4242': { model: 'openai/gpt-4o' } },
      },
      web: { access: 'full', users: { ana: { access: 'read-only' } } },
    },
  });
  const web = (signedInAs?: `telegram:${string}` | `web:${string}`) => ({
    platform: 'web' as const,
    chatId: 'owner0123456789ab-tab0123456789',
    userId: 'owner0123456789ab',
    ...(signedInAs ? { signedInAs } : {}),
  });

  test("gets that user's private-chat policy, not the web chat's", () => {
    const p = resolvePolicy(config, web('telegram:4242'));
    assert.equal(p.access, 'chat-only', 'the chat override keyed by her private chat (her id)');
    assert.equal(p.model, 'openai/gpt-4o', 'her user override');
    assert.equal(resolvePolicy(config, web()).access, 'full', 'the local browser keeps the web chat policy');
    assert.equal(resolvePolicy(config, web('web:ana')).access, 'read-only', 'an invited web user: web users override');
  });

  test("is admitted by the platform's allowFrom as that user", () => {
    const say = { isDirect: true, mentionsBot: false, text: 'hi' };
    const ana = web('telegram:4242');
    assert.deepEqual(admit(resolvePolicy(config, ana), { ...ana, ...say }, { replyToStrangers: true }), {
      admitted: true,
    });
    const bob = web('telegram:777');
    assert.equal(admit(resolvePolicy(config, bob), { ...bob, ...say }, { replyToStrangers: true }).admitted, false);
  });
});
