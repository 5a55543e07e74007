// The web chat's display log: streamed edits fold into their message in place, a second process
// reads what the first wrote, and a file that does not parse is moved aside rather than trusted.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDisplayLog, foldShown, type ShownEvent } from '../../src/adapters/web/display-log.ts';
import { silentLogger } from '../../src/core/log.ts';
import { tempDir } from '../helpers.ts';

test('an edit replaces its message in place, keeping its file and buttons; a repeated user message is dropped', () => {
  const events: ShownEvent[] = [];
  foldShown(events, { type: 'user', id: 'u1', text: 'write me a novel' });
  foldShown(events, { type: 'message', id: '7', text: 'Thinking', buttons: [{ id: 'b', label: 'Ok' }] });
  foldShown(events, { type: 'user', id: 'u2', text: '/stop' });
  foldShown(events, { type: 'user', id: 'u1', text: 'write me a novel' });
  foldShown(events, { type: 'edit', id: '7', text: 'Thinking about it\n\n(stopped)' });
  assert.deepEqual(events, [
    { type: 'user', id: 'u1', text: 'write me a novel' },
    { type: 'message', id: '7', text: 'Thinking about it\n\n(stopped)', buttons: [{ id: 'b', label: 'Ok' }] },
    { type: 'user', id: 'u2', text: '/stop' },
  ]);
});

test('the oldest events go first past the cap', () => {
  const events: ShownEvent[] = [];
  for (let i = 0; i < 5; i++) foldShown(events, { type: 'note', text: `n${i}` }, 3);
  assert.deepEqual(
    events.map((e) => e.text),
    ['n2', 'n3', 'n4'],
  );
});

test('a second process reads what one wrote; an unreadable file is moved aside, the session empty', async () => {
  const dir = tempDir();
  const first = createDisplayLog(dir, silentLogger);
  first.add('sess-0001', 1, { type: 'user', id: 'a', text: 'hi' });
  first.add('sess-0001', 2, { type: 'message', id: '1', text: 'Hel' });
  first.add('sess-0001', 3, { type: 'edit', id: '1', text: 'Hello' });
  assert.deepEqual((await first.read('sess-0001')).seq, 3);
  await first.flush();
  const second = createDisplayLog(dir, silentLogger);
  const page = await second.read('sess-0001');
  assert.deepEqual(page, {
    events: [
      { type: 'user', id: 'a', text: 'hi' },
      { type: 'message', id: '1', text: 'Hello' },
    ],
    seq: 0,
  });
  writeFileSync(join(dir, 'sess-0002.json'), '{"not": "a list"');
  assert.deepEqual(await second.read('sess-0002'), { events: [], seq: 0 });
  assert.ok(!existsSync(join(dir, 'sess-0002.json')));
  assert.ok(
    readdirSync(dir).some((f) => f.startsWith('sess-0002.json.corrupt-')),
    'kept aside',
  );
});
