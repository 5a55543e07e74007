// The one command table: what it parses (names, aliases, an argument only where one is declared),
// what /help lists for a caller (only the levels they may run), what the platform menus get
// (memory's commands beside the gateway's, with argument names Discord accepts), and that a name
// registered twice is refused at once rather than shadowing another command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
} from '../../src/gateway/commands/index.ts';
import type { ChatCommand } from '../../src/runner/chat-command.ts';
import { commandAllowed } from '../../src/runner/command-access.ts';
import { memoryCommands } from '../../src/runner/memory-commands.ts';
import { createMemoryStore } from '../../src/store/index.ts';

const noop = async () => undefined;
const extra: ChatCommand[] = [
  { name: 'ping', description: 'answers pong', access: 'read', run: noop },
  {
    name: 'wipe',
    description: 'deletes things',
    args: { name: 'what', description: 'the thing' },
    access: 'write',
    run: noop,
  },
];
const registry = createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, ...extra]);

test('a registered name parses with its argument; an alias answers as its command', () => {
  const p = registry.parse('/model@my_bot  gpt-4o ');
  assert.equal(p?.command.name, 'model');
  assert.equal(p?.arg, 'gpt-4o');
  assert.equal(registry.parse('/START')?.command.name, 'help');
  assert.equal(registry.parse('/start')?.name, 'start');
  assert.equal(registry.parse('/wipe the\nlogs')?.arg, 'the\nlogs');
  assert.equal(registry.parse('/ping')?.command.name, 'ping');
});

test('unknown names, and text after a command that takes none, are plain text', () => {
  for (const text of ['/pong', '/ping now', '/help me please', 'ping', '/', '/ping@', '/pingx'])
    assert.equal(registry.parse(text), undefined, text);
});

test('/help lists only what the caller may run; every command is in the menu', () => {
  const readOnlyGroup = (level: 'read' | 'write') =>
    commandAllowed(level, { access: 'read-only' }, { isDirect: false, admin: false }).ok;
  const help = registry.helpText(readOnlyGroup);
  assert.match(help, /^I am an AI assistant\./);
  assert.match(help, /\n\/ping: answers pong/);
  assert.match(help, /\n\/model \[name\]: show or switch the model/);
  assert.doesNotMatch(help, /\/wipe|\/reset|\/start/);
  assert.match(registry.helpText(), /\n\/wipe \[what\]: deletes things/);
  const menu = registry.menu();
  assert.deepEqual(
    menu.map((c) => c.name),
    [
      'new',
      'model',
      'usage',
      'status',
      'compact',
      'stop',
      'reset',
      'whoami',
      'help',
      'approve',
      'deny',
      'ping',
      'wipe',
    ],
  );
  assert.deepEqual(menu.find((c) => c.name === 'wipe')?.argument, { name: 'what', description: 'the thing' });
});

test("memory's commands: /help writes /forget <id|all>, and the menu's argument is a name Discord accepts", () => {
  const memory = createCommandRegistry(memoryCommands(createMemoryStore().memories));
  assert.match(memory.helpText(), /\n\/memory: .*\n\/forget <id\|all>: delete one note, or all of them/);
  const forget = memory.menu().find((c) => c.name === 'forget');
  assert.match(forget?.argument?.name ?? '', /^[-_a-z0-9]{1,32}$/);
  assert.equal(memory.parse('/forget all')?.arg, 'all');
  assert.equal(memory.parse('/forget')?.command.name, 'forget');
});

test('a name registered twice (or as an alias) is refused when the registry is made', () => {
  assert.throws(() => createCommandRegistry([...extra, { ...extra[0]!, description: 'again' }]), /\/ping .*twice/);
  assert.throws(
    () => createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, { ...extra[0]!, name: 'start' }]),
    /\/start .*twice/,
  );
});
