// The web chat's display log: streamed edits fold into their message in place, a second process
// reads what the first wrote through the store, a failed write is kept for the next, and the files
// of older versions move into the store (one that does not parse is moved aside, not trusted).
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  createDisplayLog,
  foldShown,
  migrateDisplayFiles,
  type ShownEvent,
} from '../../src/adapters/web/display-log.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createFileStore, createMemoryStore } from '../../src/store/index.ts';
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

test('a replace removes the turn it names: its user message and what answered it, nothing else', () => {
  const events: ShownEvent[] = [
    { type: 'user', id: 'u1', text: 'first' },
    { type: 'message', id: '7', text: 'one', for: 'u1' },
    { type: 'user', id: 'u2', text: 'capital of France?' },
    { type: 'activity', kind: 'tool-start', text: 'looking…', for: 'u2' },
    { type: 'message', id: '8', text: 'Lyon', for: 'u2' },
    { type: 'note', text: 'a note' },
  ];
  foldShown(events, { type: 'replace', of: 'u2' });
  foldShown(events, { type: 'user', id: 'u3', text: 'capital of Spain?' });
  assert.deepEqual(events, [
    { type: 'user', id: 'u1', text: 'first' },
    { type: 'message', id: '7', text: 'one', for: 'u1' },
    { type: 'note', text: 'a note' },
    { type: 'user', id: 'u3', text: 'capital of Spain?' },
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

test('a second process (or replica) reads what one wrote through the store, edits folded in', async () => {
  const dir = tempDir();
  const one = createFileStore(dir);
  const first = createDisplayLog(one.webDisplay, silentLogger);
  first.add('sess-0001', 1, { type: 'user', id: 'a', text: 'hi' });
  first.add('sess-0001', 2, { type: 'message', id: '1', text: 'Hel' });
  first.add('sess-0001', 3, { type: 'edit', id: '1', text: 'Hello' });
  assert.deepEqual((await first.read('sess-0001')).seq, 3, 'its own events are all in what it reads');
  await first.flush();
  await one.close();
  const two = createFileStore(dir);
  const second = createDisplayLog(two.webDisplay, silentLogger);
  assert.deepEqual(await second.read('sess-0001'), {
    events: [
      { type: 'user', id: 'a', text: 'hi' },
      { type: 'message', id: '1', text: 'Hello' },
    ],
    seq: 0,
  });
  assert.deepEqual(await second.read('sess-0002'), { events: [], seq: 0 });
  await two.close();
});

test('a write the store refuses is kept and written with the next; a read then holds both', async () => {
  const store = createMemoryStore();
  let failing = true;
  const flaky = {
    read: (s: string) => store.webDisplay.read(s),
    update: async (s: string, fn: (e: ShownEvent[]) => ShownEvent[]) => {
      if (failing) throw new Error('disk full');
      return store.webDisplay.update(s, fn);
    },
  };
  const d = createDisplayLog(flaky, silentLogger);
  d.add('sess-0001', 1, { type: 'user', id: 'a', text: 'first' });
  assert.deepEqual(await d.read('sess-0001'), { events: [], seq: 0 }, 'nothing written yet: the page replays it');
  failing = false;
  d.add('sess-0001', 2, { type: 'note', text: 'second' });
  assert.deepEqual(await d.read('sess-0001'), {
    events: [
      { type: 'user', id: 'a', text: 'first' },
      { type: 'note', text: 'second' },
    ],
    seq: 2,
  });
});

test("an older version's files move into the store once; a bad one is moved aside", async () => {
  const dir = tempDir();
  const store = createMemoryStore();
  const shown = [
    { type: 'user', id: 'a', text: 'hi' },
    { type: 'message', id: '1', text: 'Hello', for: 'a' },
  ];
  writeFileSync(join(dir, 'f00d-tab0000001.json'), JSON.stringify(shown));
  writeFileSync(join(dir, 'f00d-tab0000002.json'), '{"not": "a list"');
  writeFileSync(join(dir, 'f00d-tab0000003.json'), JSON.stringify([{ type: 'note', text: 'older' }]));
  await store.webDisplay.update('f00d-tab0000003', () => [{ type: 'note', text: 'the store is newer' }]);
  writeFileSync(join(dir, 'notes.txt'), 'not a record');
  assert.equal(await migrateDisplayFiles(dir, store.webDisplay, silentLogger), 2);
  assert.deepEqual(await store.webDisplay.read('f00d-tab0000001'), shown, 'replayed as it was');
  assert.deepEqual(await store.webDisplay.read('f00d-tab0000002'), []);
  assert.deepEqual(await store.webDisplay.read('f00d-tab0000003'), [{ type: 'note', text: 'the store is newer' }]);
  const left = readdirSync(dir).sort();
  assert.ok(left.includes('f00d-tab0000001.json.migrated') && !left.includes('f00d-tab0000001.json'), String(left));
  assert.ok(
    left.some((f) => f.startsWith('f00d-tab0000002.json.corrupt-')),
    'the bad one kept aside',
  );
  assert.equal(await migrateDisplayFiles(dir, store.webDisplay, silentLogger), 0, 'once');
});
