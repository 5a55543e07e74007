// parseCommand as a table: the five commands, case-insensitive, with an optional @botname and
// surrounding whitespace; anything else (other prefixes, arguments, unknown names) is text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommand } from '../../src/gateway/commands/index.ts';

const table: [string, ReturnType<typeof parseCommand>][] = [
  ['/help', 'help'],
  ['/whoami', 'whoami'],
  ['/reset', 'reset'],
  ['/stop', 'stop'],
  ['/start', 'start'],
  ['/RESET', 'reset'],
  ['/Stop', 'stop'],
  ['  /reset  ', 'reset'],
  ['/reset\n', 'reset'],
  ['/reset@my_bot', 'reset'],
  ['/stop@Box_Bot2', 'stop'],
  ['!reset', undefined],
  ['reset', undefined],
  ['/reset now', undefined],
  ['please /reset', undefined],
  ['/resetx', undefined],
  ['/reset@', undefined],
  ['/reset@my-bot', undefined],
  ['/unknown', undefined],
  ['/', undefined],
  ['', undefined],
];

for (const [text, want] of table) {
  test(`parseCommand(${JSON.stringify(text)}) is ${want ?? 'not a command'}`, () => {
    assert.equal(parseCommand(text), want);
  });
}
