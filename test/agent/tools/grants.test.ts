// Grants as data: which levels an access mode permits, the allow/deny lists, and the sandbox
// grant of a call from the tool's level and declared hosts × the conversation's policy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantFor, intersectHosts, permits, type ToolPolicy } from '../../../src/agent/tools/index.ts';
import { DEFAULT_LIMITS } from '../../../src/sandbox/index.ts';

const policy = (over: Partial<ToolPolicy> = {}): ToolPolicy => ({
  access: 'full',
  workspace: '/srv/ws/telegram-1',
  network: { allow: ['https://*.wikipedia.org', 'https://api.github.com'], block: ['private'] },
  limits: DEFAULT_LIMITS,
  ...over,
});

test('read-only permits None and ReadOnly tools; chat-only None only; the refusal says why', () => {
  assert.deepEqual(permits({ access: 'read-only' }, 'read', 'ReadOnly'), { ok: true });
  assert.deepEqual(permits({ access: 'read-only' }, 'write', 'Write'), {
    ok: false,
    reason: 'write needs Write access, and this conversation is read-only',
  });
  assert.equal(permits({ access: 'chat-only' }, 'read', 'ReadOnly').ok, false);
  assert.equal(permits({ access: 'chat-only' }, 'ToolSearch', 'None').ok, true);
});

test('deny and allow lists apply on top of the level', () => {
  assert.deepEqual(permits({ access: 'full', tools: { deny: ['bash'] } }, 'bash', 'Execute'), {
    ok: false,
    reason: 'bash is denied in this conversation',
  });
  assert.equal(permits({ access: 'full', tools: { allow: ['read'] } }, 'grep', 'ReadOnly').ok, false);
  assert.equal(permits({ access: 'full', tools: { allow: ['read'] } }, 'read', 'ReadOnly').ok, true);
});

test('None gets no mounts; ReadOnly the workspace read-only; Write and Execute read-write', () => {
  assert.deepEqual(grantFor('None', [], policy()).mounts, []);
  assert.deepEqual(grantFor('ReadOnly', [], policy()).mounts, [
    { host: '/srv/ws/telegram-1', guest: '/', readOnly: true },
  ]);
  assert.deepEqual(grantFor('Write', [], policy()).mounts, [
    { host: '/srv/ws/telegram-1', guest: '/', readOnly: false },
  ]);
  assert.deepEqual(grantFor('Execute', [], policy()).mounts, [
    { host: '/srv/ws/telegram-1', guest: '/', readOnly: false },
  ]);
});

test('network is the declared hosts ∩ the policy allowed hosts, with the policy blocks', () => {
  assert.deepEqual(grantFor('ReadOnly', ['https://en.wikipedia.org'], policy()).network, {
    allow: ['https://en.wikipedia.org'],
    block: ['private'],
  });
  assert.deepEqual(intersectHosts(['https://*.github.com'], ['https://api.github.com']), ['https://api.github.com']);
  assert.deepEqual(intersectHosts(['https://example.com'], ['https://*.wikipedia.org']), []);
  assert.deepEqual(
    intersectHosts(['http://en.wikipedia.org'], ['https://*.wikipedia.org']),
    [],
    'the scheme must match',
  );
  assert.deepEqual(
    intersectHosts(['*'], ['https://api.github.com']),
    ['https://api.github.com'],
    '* declares whatever the policy allows',
  );
  assert.deepEqual(grantFor('ReadOnly', [], policy()).network.allow, [], 'no declaration, no network');
  assert.deepEqual(
    intersectHosts(['https://*.github.com'], ['https://*.github.com']),
    ['https://*.github.com'],
    'a wildcard both sides name is kept',
  );
  assert.deepEqual(intersectHosts(['https://*.github.com'], ['https://github.com']), [], '*.x is not x');
});
