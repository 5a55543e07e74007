// The journal under the delivery log, with records that mean nothing: group commit, a failed
// append undone and followed by a whole rewrite, compaction, and what a load does with a torn or
// unreadable line. Files are in memory; appends are counted.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, silentLogger } from '../../src/core/log.ts';
import { createJournal, type Journal } from '../../src/store/append-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import { StoreError } from '../../src/store/errors.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import type { CorruptReport } from '../../src/store/types.ts';

type Rec = { n: number };
const PATH = 'test.log';

interface Opened {
  journal: Journal<Rec>;
  /** Records applied at load, in order. */
  applied: number[];
  /** What is live (the snapshot writes these). */
  live: number[];
  appends: string[];
  reports: CorruptReport[];
  /** Log lines written. */
  warnings: string[];
}

/**
 * A journal over `state`; `disk.fail` makes the next append fail after writing half its text (and
 * after `disk.hold`, if set, settles).
 */
function open(
  state: Map<string, string>,
  disk: { fail?: boolean; hold?: Promise<void> } = {},
  readOnly = false,
  gather = false,
): Opened {
  const base = createMemoryFiles(state, { now: Date.now });
  const appends: string[] = [];
  const files: Files = {
    ...base,
    async openLog(path) {
      const log = await base.openLog(path);
      return {
        async append(text) {
          appends.push(text);
          if (disk.fail) {
            disk.fail = false;
            await log.append(text.slice(0, Math.ceil(text.length / 2)));
            await disk.hold;
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          }
          await log.append(text);
        },
        close: () => log.close(),
      };
    },
  };
  const reports: CorruptReport[] = [];
  const warnings: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      warnings.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ destination, pretty: false });
  const docs = createDocuments(files, { logger: silentLogger, onCorrupt: (r) => reports.push(r) });
  const applied: number[] = [];
  const live: number[] = [];
  const journal = createJournal<Rec>(docs, {
    path: PATH,
    what: 'test log',
    logger,
    parse(line) {
      try {
        const r = JSON.parse(line) as Rec;
        return typeof r.n === 'number' ? r : undefined;
      } catch {
        return undefined;
      }
    },
    apply: (r) => applied.push(r.n),
    snapshot: () => live.map((n) => `${JSON.stringify({ n })}\n`).join(''),
    live: () => live.length,
    ...(readOnly ? { readOnly: true } : {}),
    ...(gather ? { gather: true } : {}),
  });
  return { journal, applied, live, appends, reports, warnings };
}

/** Commits `n` as a caller does: live at once, undone if the write fails. */
function change(o: Opened, n: number): Promise<void> {
  o.live.push(n);
  return o.journal.commit({ n }, () => o.live.splice(o.live.indexOf(n), 1));
}

const gatherTitle =
  'a gathering journal writes what a chain of promise steps put in line as one append, without waiting for the ' +
  "rest of the event loop's round";
test(gatherTitle, async () => {
  const o = open(new Map<string, string>(), {}, false, true);
  await o.journal.load();
  const order: string[] = [];
  setImmediate(() => order.push('the event loop went round'));
  const first = change(o, 1);
  // A usage charge, then the history written behind it some promise steps later (as a turn's save does).
  for (let i = 0; i < 12; i++) await null;
  const second = change(o, 2);
  order.push(`${o.appends.length} appends`);
  // Promise steps only (the event loop cannot go round meanwhile): the write starts within them.
  for (let i = 0; i < 1000 && o.appends.length === 0; i++) await null;
  order.push(o.appends.length ? 'appended' : 'not appended yet');
  await Promise.all([first, second]);
  assert.deepEqual(o.appends, ['{"n":1}\n{"n":2}\n'], 'one sync for both');
  assert.deepEqual(order.slice(0, 2), ['0 appends', 'appended'], 'the write went before the event loop went round');
  await o.journal.close();
});

test('changes made while a write is in flight share the next append (group commit), in call order', async () => {
  const state = new Map<string, string>();
  const o = open(state);
  await o.journal.load();
  await Promise.all([1, 2, 3, 4].map((n) => change(o, n)));
  assert.ok(o.appends.length < 4, `${o.appends.length} appends for 4 changes`);
  assert.equal(o.appends.join(''), '{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
  await o.journal.close();

  const again = open(state);
  await again.journal.load();
  assert.deepEqual(again.applied, [1, 2, 3, 4]);
  await again.journal.close();
});

test('a failed append is undone and refused as a retryable io error; the next change rewrites it whole', async () => {
  const state = new Map<string, string>();
  const disk = { fail: false };
  const o = open(state, disk);
  await o.journal.load();
  await change(o, 1);
  disk.fail = true;
  await assert.rejects(
    change(o, 2),
    (e: unknown) => e instanceof StoreError && e.code === 'io' && e.retryable && /ENOSPC/.test(e.message),
  );
  assert.deepEqual(o.live, [1], 'undone');
  assert.ok(!state.get(PATH)?.endsWith('\n'), 'half a line reached the file');
  await change(o, 3);
  assert.equal(state.get(PATH), '{"n":1}\n{"n":3}\n', 'rewritten from what is live: no torn line left');
  await o.journal.close();
});

test('a change put in line while a failing append is written fails with it: never durable before it', async () => {
  const state = new Map<string, string>();
  let release = () => {};
  const disk = { fail: false, hold: new Promise<void>((r) => (release = r)) };
  const o = open(state, disk);
  await o.journal.load();
  await change(o, 1);
  disk.fail = true;
  const failing = change(o, 2);
  while (o.appends.length < 2) await new Promise((r) => setImmediate(r));
  const behind = change(o, 3); // in line while the append of 2 is under way
  release();
  const outcomes = await Promise.allSettled([failing, behind]);
  assert.deepEqual(
    outcomes.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.deepEqual(o.live, [1], 'both undone');
  await change(o, 4);
  assert.equal(state.get(PATH), '{"n":1}\n{"n":4}\n', 'neither 2 nor 3 reached the rewritten file');
  await o.journal.close();
});

test('the file is rewritten once it holds over twice what is live', async () => {
  const state = new Map<string, string>();
  const o = open(state);
  await o.journal.load();
  for (let n = 0; n < 70; n++) {
    await change(o, n);
    o.live.length = 0; // each change is over at once: nothing stays live
  }
  const lines = (state.get(PATH) ?? '').split('\n').filter(Boolean).length;
  assert.ok(lines < 70, `${lines} lines kept for 70 changes, none live`);
  await o.journal.close();
});

test('load: a half-written last line is dropped with a warning, no report; the file is rewritten whole', async () => {
  const state = new Map([[PATH, '{"n":1}\n{"n":2}\n{"n":']]);
  const o = open(state);
  assert.deepEqual(await o.journal.load(), { unterminated: true });
  assert.deepEqual(o.applied, [1, 2]);
  assert.deepEqual(o.reports, []);
  assert.equal(o.warnings.length, 1);
  assert.match(o.warnings[0]!, /half-written last line of the test log/);
  o.live.push(...o.applied);
  await o.journal.compact(true);
  assert.equal(state.get(PATH), '{"n":1}\n{"n":2}\n');
  await o.journal.close();
});

test('load: a whole last record that lost only its newline is kept', async () => {
  const o = open(new Map([[PATH, '{"n":1}\n{"n":2}']]));
  assert.deepEqual(await o.journal.load(), { unterminated: true });
  assert.deepEqual(o.applied, [1, 2]);
  assert.deepEqual(o.warnings, []);
  await o.journal.close();
});

test('load: an unreadable line is reported, a copy set aside, every readable one applied, then rewritten', async () => {
  const state = new Map([[PATH, '{"n":1}\ngarbage\n{"n":3}\n']]);
  const o = open(state);
  assert.deepEqual(await o.journal.load(), { unterminated: false });
  assert.deepEqual(o.applied, [1, 3]);
  assert.equal(o.reports.length, 1);
  assert.match(o.reports[0]!.reason, /unreadable line 2; the other 2 kept/);
  assert.ok(state.get(PATH)?.includes('garbage'), 'the live file stays until it is rewritten');
  o.live.push(...o.applied);
  await o.journal.compact();
  assert.equal(state.get(PATH), '{"n":1}\n{"n":3}\n');
  await o.journal.close();
});

test('read-only: nothing is reported or written, and a change is undone and refused', async () => {
  const state = new Map([[PATH, '{"n":1}\ngarbage\n']]);
  const o = open(state, {}, true);
  await o.journal.load();
  assert.deepEqual(o.applied, [1]);
  assert.deepEqual(o.reports, []);
  await assert.rejects(change(o, 2), (e: unknown) => e instanceof StoreError && e.code === 'closed');
  assert.deepEqual(o.live, []);
  assert.equal(state.get(PATH), '{"n":1}\ngarbage\n');
});

test('close waits for the appends in flight; a change after it is undone and refused', async () => {
  const state = new Map<string, string>();
  const o = open(state);
  await o.journal.load();
  const pending = change(o, 1);
  await o.journal.close();
  await pending;
  assert.equal(state.get(PATH), '{"n":1}\n');
  await assert.rejects(
    change(o, 2),
    (e: unknown) => e instanceof StoreError && e.code === 'closed' && /closed/.test(e.message),
  );
  assert.deepEqual(o.live, [1]);
});
