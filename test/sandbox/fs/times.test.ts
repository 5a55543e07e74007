// File times as a guest sets and reads them: exact to the nanosecond on files, directories and
// symlinks themselves, `no-change` keeping the other time exactly (pre-1970 ones too), and the
// exact path costing nothing for whole microseconds and `now`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  MAX_TOUCH_RUNS_PER_CALL,
  reportExactTimesTo,
  touchRuns,
  useTouchForTests,
} from '../../../src/sandbox/host/fs-times.ts';
import { callOn, codeOf, temp } from './harness.ts';

const ts = (seconds: bigint, nanoseconds: number) => ({ tag: 'timestamp' as const, val: { seconds, nanoseconds } });
const keep = { tag: 'no-change' as const };
const now = { tag: 'now' as const };

describe('filesystem host: exact file times', () => {
  it('sets a file, a directory, a symlink itself, a read-only file and a FIFO to the exact nanosecond', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    mkdirSync(join(ws, 'd'));
    symlinkSync('f.txt', join(ws, 'link'));
    writeFileSync(join(ws, 'ro.txt'), 'r', { mode: 0o444 });
    execFileSync('mkfifo', [join(ws, 'fifo')]);
    const call = callOn(ws);
    const root = call.dir();
    for (const name of ['f.txt', 'd', 'link', 'ro.txt', 'fifo']) {
      root.setTimesAt({}, name, ts(1_600_000_000n, 123_456_789), ts(1_700_000_000n, 987_654_321));
      const st = root.statAt({}, name);
      assert.deepEqual(st.dataAccessTimestamp, { seconds: 1_600_000_000n, nanoseconds: 123_456_789 }, name);
      assert.deepEqual(st.dataModificationTimestamp, { seconds: 1_700_000_000n, nanoseconds: 987_654_321 }, name);
    }
    // As the WASI suite's symlink_filestat does: the link's own mtime, 200 ns earlier.
    const target = statSync(join(ws, 'f.txt'), { bigint: true }).mtimeNs;
    root.setTimesAt({}, 'link', keep, ts(1_700_000_000n, 987_654_121));
    assert.deepEqual(root.statAt({}, 'link').dataModificationTimestamp, {
      seconds: 1_700_000_000n,
      nanoseconds: 987_654_121,
    });
    assert.equal(lstatSync(join(ws, 'link'), { bigint: true }).mtimeNs, 1_700_000_000_987_654_121n);
    assert.equal(statSync(join(ws, 'f.txt'), { bigint: true }).mtimeNs, target, 'the target is left alone');
    // Through an open descriptor too.
    const f = root.openAt({}, 'f.txt', {}, { read: true });
    f.setTimes(ts(5n, 1), ts(6n, 999_999_999));
    assert.deepEqual(f.stat().dataAccessTimestamp, { seconds: 5n, nanoseconds: 1 });
    assert.deepEqual(f.stat().dataModificationTimestamp, { seconds: 6n, nanoseconds: 999_999_999 });
    call.end();
  });

  it('keeps the time a guest does not change exactly, to the nanosecond', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    const call = callOn(ws);
    const root = call.dir();
    root.setTimesAt({}, 'f.txt', ts(1_600_000_000n, 123_456_789), ts(1_700_000_000n, 987_654_321));
    root.setTimesAt({}, 'f.txt', keep, ts(1_750_000_000n, 0));
    let st = root.statAt({}, 'f.txt');
    assert.deepEqual(st.dataAccessTimestamp, { seconds: 1_600_000_000n, nanoseconds: 123_456_789 });
    assert.deepEqual(st.dataModificationTimestamp, { seconds: 1_750_000_000n, nanoseconds: 0 });
    root.setTimesAt({}, 'f.txt', ts(1_650_000_000n, 5_000), keep);
    st = root.statAt({}, 'f.txt');
    assert.deepEqual(st.dataAccessTimestamp, { seconds: 1_650_000_000n, nanoseconds: 5_000 });
    assert.deepEqual(st.dataModificationTimestamp, { seconds: 1_750_000_000n, nanoseconds: 0 });
    call.end();
  });

  it('keeps a time before 1970 when the guest changes only the other one', () => {
    const ws = temp('boxbot-fs-times-');
    const file = join(ws, 'old.txt');
    writeFileSync(file, 'old');
    utimesSync(file, new Date(-1500), new Date(-1500));
    const call = callOn(ws);
    call.dir().setTimesAt({}, 'old.txt', ts(1_000n, 0), keep);
    const st = lstatSync(file, { bigint: true });
    assert.equal(st.mtimeNs, -1_500_000_000n, 'the modification time stays in 1969, not "now"');
    assert.equal(st.atimeNs, 1_000_000_000_000n);
    call.end();
  });

  it('refuses a time past what the system can hold as overflow, changing nothing', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    const before = statSync(join(ws, 'f.txt'), { bigint: true }).mtimeNs;
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(
      codeOf(() => root.setTimesAt({}, 'f.txt', keep, ts(2n ** 64n - 1n, 0))),
      'overflow',
    );
    assert.equal(statSync(join(ws, 'f.txt'), { bigint: true }).mtimeNs, before);
    assert.equal(
      codeOf(() => root.setTimesAt({}, 'f.txt', keep, ts(1n, 1_000_000_000))),
      'invalid',
    );
    call.end();
  });

  it('sets whole microseconds and now exactly without running anything', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    const call = callOn(ws);
    const root = call.dir();
    const runs = touchRuns();
    // Microsecond times since 1970, where a double's rounding is up to a few hundred ns.
    let seed = 12345n;
    for (let i = 0; i < 200; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      const us = seed % 2_100_000_000_000_000n; // before 2038, which every filesystem holds
      const a = { seconds: us / 1_000_000n, nanoseconds: Number(us % 1_000_000n) * 1000 };
      const m = { seconds: a.seconds / 2n, nanoseconds: a.nanoseconds };
      root.setTimesAt({}, 'f.txt', { tag: 'timestamp', val: a }, { tag: 'timestamp', val: m });
      const st = root.statAt({}, 'f.txt');
      assert.deepEqual([st.dataAccessTimestamp, st.dataModificationTimestamp], [a, m]);
    }
    root.setTimesAt({}, 'f.txt', now, now);
    assert.ok(Math.abs(statSync(join(ws, 'f.txt')).mtimeMs - Date.now()) < 60_000);
    assert.equal(touchRuns(), runs, 'no process was started');
    call.end();
  });
});

describe('filesystem host: exact times in a loop', () => {
  it('starts at most MAX_TOUCH_RUNS_PER_CALL processes per call, then keeps microseconds and says so once', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    const notes: string[] = [];
    useTouchForTests(undefined); // a fresh note
    reportExactTimesTo((m) => notes.push(m));
    const call = callOn(ws);
    try {
      const root = call.dir();
      const runs = touchRuns();
      for (let i = 0; i < 1000; i++) {
        root.setTimesAt({}, 'f.txt', ts(1_600_000_000n + BigInt(i), 123_456_789), ts(1_700_000_000n, 987_654_321 - i));
      }
      const started = touchRuns() - runs;
      assert.ok(started <= MAX_TOUCH_RUNS_PER_CALL, `${started} touch runs for 1000 settings`);
      assert.ok(started > 0, 'the first settings are exact');
      // Past the cap the times are still set, to the microsecond.
      const st = root.statAt({}, 'f.txt');
      assert.deepEqual(st.dataAccessTimestamp, { seconds: 1_600_000_999n, nanoseconds: 123_456_000 });
      assert.deepEqual(st.dataModificationTimestamp, { seconds: 1_700_000_000n, nanoseconds: 987_653_000 });
      assert.equal(notes.length, 1, notes.join('; '));
      assert.match(notes[0]!, /microsecond past \d+ exact settings in one call/);
    } finally {
      reportExactTimesTo(() => {});
      useTouchForTests(undefined);
      call.end();
    }
    // The next call has its own runs: exact again.
    const next = callOn(ws);
    next.dir().setTimesAt({}, 'f.txt', ts(5n, 1), keep);
    assert.deepEqual(next.dir().statAt({}, 'f.txt').dataAccessTimestamp, { seconds: 5n, nanoseconds: 1 });
    next.end();
  });
});

describe('filesystem host: file times without touch', () => {
  it('keeps the microsecond result, fails no call, and says so once', () => {
    const ws = temp('boxbot-fs-times-');
    writeFileSync(join(ws, 'f.txt'), 'f');
    const notes: string[] = [];
    reportExactTimesTo((m) => notes.push(m));
    const call = callOn(ws);
    const root = call.dir();
    try {
      for (const touch of ['/bin/false', '/nonexistent/touch', null]) {
        useTouchForTests(touch);
        notes.length = 0;
        root.setTimesAt({}, 'f.txt', ts(1_600_000_000n, 123_456_789), ts(1_700_000_000n, 987_654_321));
        root.setTimesAt({}, 'f.txt', ts(1_600_000_000n, 123_456_789), ts(1_700_000_000n, 987_654_321));
        const st = root.statAt({}, 'f.txt');
        assert.deepEqual(st.dataAccessTimestamp, { seconds: 1_600_000_000n, nanoseconds: 123_456_000 }, String(touch));
        assert.deepEqual(st.dataModificationTimestamp, { seconds: 1_700_000_000n, nanoseconds: 987_654_000 });
        assert.equal(notes.length, 1, `one note (${touch}): ${notes.join('; ')}`);
        assert.match(notes[0]!, /microsecond/);
      }
    } finally {
      useTouchForTests(undefined);
      reportExactTimesTo(() => {});
      call.end();
    }
  });
});
