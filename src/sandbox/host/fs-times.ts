// Setting a file's access and modification times to the exact nanosecond a guest asks for, through
// the pinned fd's magic link (the object itself, even an O_PATH symlink), `no-change` included.
//
// Node's utimes takes seconds as a double and libuv keeps only whole microseconds of it
// (uv__fs_to_timespec drops `tv_nsec % 1000`); nor can it leave one of the two times alone. So
// Node sets what it can and an fstat compares the result with the request; only a difference (a
// sub-microsecond part, a double's rounding, a kept time Node rewrote) runs coreutils `touch` on
// /proc/<pid>/fd/<fd> with the exact `@seconds.nanoseconds`, `-a`/`-m` leaving the other time
// untouched (utimensat's UTIME_OMIT). A request of sub-microsecond times only, the other kept,
// goes to touch directly: one run instead of Node's rewrite and two. Whole microseconds and `now`
// never spawn (beside a kept time with a sub-microsecond part, one run restores that). Without
// touch or /proc the microsecond result stays: never a failed call for it. A guest decides how
// often it asks, so one call may run touch MAX_TOUCH_RUNS_PER_CALL times; past that its times
// are kept to the microsecond too (else a set-times loop costs the host a process per turn).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { type NewTimestamp, requestedNs } from './fs-meta.ts';
import { at } from './fs-walk.ts';

const NS = 1_000_000_000n;
/** Bound on one touch run: it takes milliseconds; a hung one must not hold the guest's call. */
const TOUCH_TIMEOUT_MS = 2000;

/** touch runs one sandbox call may start; `tar x` or `cp -p` of a few files fits, a loop does not. */
export const MAX_TOUCH_RUNS_PER_CALL = 32;

/** Where a call counts the touch runs it started (its CallContext). */
export interface TouchBudget {
  touchRuns: number;
}

/** `ns` since the epoch as exact decimal seconds, `-1.500000000` style (touch's `@` and Node's strings). */
export function decimalSeconds(ns: bigint): string {
  const abs = ns < 0n ? -ns : ns;
  return `${ns < 0n ? '-' : ''}${abs / NS}.${(abs % NS).toString().padStart(9, '0')}`;
}

/**
 * The utimes argument under which libuv sets `ns` truncated to whole microseconds. A numeric
 * string, not a number: Node turns a negative number into "now" (a string passes as it is). Half
 * a microsecond away from the target, towards where libuv truncates (down for times after 1970, up
 * before), so the double's rounding (about 240 ns today) never lands on the neighbouring one.
 */
function nodeSeconds(ns: bigint): string {
  const us = ns / 1000n;
  return decimalSeconds(us * 1000n + (us >= 0n ? 500n : -500n));
}

/** Said when touch ran but the time read back differs: the filesystem's own limit. */
const INEXACT = "a file's exact time did not hold: the filesystem's time granularity or range is coarser";

let touchPath: string | null | undefined;
let reported = false;
let report: (message: string) => void = () => {};
let runs = 0;

/** Where the once-per-thread note goes when exact times are unavailable (default: nowhere). */
export function reportExactTimesTo(f: (message: string) => void): void {
  report = f;
}

/** Uses `path` as touch from now on (null: none; undefined: look again); tests the fallback. */
export function useTouchForTests(path: string | null | undefined): void {
  touchPath = path;
  reported = false;
}

/** How many times this thread has run touch (the measure of the slow path). */
export function touchRuns(): number {
  return runs;
}

function note(message: string): void {
  if (reported) return;
  reported = true;
  report(message);
}

/** The absolute path of coreutils touch, resolved once; null without one (or off Linux). */
function touch(): string | null {
  if (touchPath === undefined) {
    touchPath = null;
    if (process.platform === 'linux') {
      for (const p of ['/usr/bin/touch', '/bin/touch']) {
        try {
          fs.accessSync(p, fs.constants.X_OK);
          touchPath = p;
          break;
        } catch {}
      }
    }
  }
  return touchPath;
}

/** Runs touch to set one time (`-a` or `-m`) or both (no flag) of the object `fd` pins to `ns`. */
function touchOnce(bin: string, fd: number, which: '-a' | '-m' | undefined, ns: bigint): boolean {
  // /proc/<pid>, not /proc/self: in the child, self is touch. `-c` never creates; no `-h`: the
  // magic link of an O_PATH fd of a symlink resolves to the symlink itself, not its target.
  const args = ['-c', ...(which ? [which] : []), '-d', `@${decimalSeconds(ns)}`, `/proc/${process.pid}/fd/${fd}`];
  runs++;
  try {
    // No shell, and an environment of its own: nothing of the host's (secrets) reaches the child.
    execFileSync(bin, args, { env: { LC_ALL: 'C' }, stdio: 'ignore', timeout: TOUCH_TIMEOUT_MS });
    return true;
  } catch (e) {
    note(`file times are kept to the microsecond: ${bin} failed (${(e as Error).message.split('\n')[0]})`);
    return false;
  }
}

/**
 * Sets the given times exactly with touch, leaving an undefined one alone; false if it could not
 * (no touch, a failed run, or the call's runs used up).
 */
function touchTimes(fd: number, a: bigint | undefined, m: bigint | undefined, budget: TouchBudget): boolean {
  const bin = touch();
  if (!bin) {
    note('file times are kept to the microsecond: no touch executable in /usr/bin or /bin');
    return false;
  }
  const needed = a !== undefined && m !== undefined && a !== m ? 2 : 1;
  if (budget.touchRuns + needed > MAX_TOUCH_RUNS_PER_CALL) {
    note(`file times are kept to the microsecond past ${MAX_TOUCH_RUNS_PER_CALL} exact settings in one call`);
    return false;
  }
  budget.touchRuns += needed;
  if (a !== undefined && a === m) return touchOnce(bin, fd, undefined, a);
  return (a === undefined || touchOnce(bin, fd, '-a', a)) && (m === undefined || touchOnce(bin, fd, '-m', m));
}

/** Whether the object `fd` pins has exactly the times asked for (undefined: any). */
function hasTimes(fd: number, a: bigint | undefined, m: bigint | undefined): boolean {
  const st = fs.fstatSync(fd, { bigint: true });
  return (a === undefined || st.atimeNs === a) && (m === undefined || st.mtimeNs === m);
}

/**
 * Sets the times of the object `fd` pins, to the nanosecond; `no-change` keeps a time exactly.
 * Touch runs are counted on `budget` (the call's); past its cap, to the microsecond.
 */
export function setTimesOf(fd: number, atime: NewTimestamp, mtime: NewTimestamp, budget: TouchBudget): void {
  const st = fs.fstatSync(fd, { bigint: true });
  const a = requestedNs(atime, st.atimeNs);
  const m = requestedNs(mtime, st.mtimeNs);
  // Both unchanged: utimensat with two UTIME_OMIT changes nothing (not even the ctime).
  if (atime.tag === 'no-change' && mtime.tag === 'no-change') return;
  // Only sub-microsecond times asked for, the other kept (Rust's set_modified, the WASI suite):
  // Node could set neither exactly and would rewrite the kept one, so touch alone, run once.
  const subMicro = (t: NewTimestamp, ns: bigint | undefined) =>
    t.tag === 'no-change' || (ns !== undefined && ns % 1000n !== 0n);
  if (subMicro(atime, a) && subMicro(mtime, m)) {
    const setA = atime.tag === 'no-change' ? undefined : a;
    const setM = mtime.tag === 'no-change' ? undefined : m;
    if (touchTimes(fd, setA, setM, budget)) {
      if (!hasTimes(fd, a, m)) note(INEXACT);
      return;
    }
  }
  const now = Date.now() / 1000;
  fs.utimesSync(at(fd), a === undefined ? now : nodeSeconds(a), m === undefined ? now : nodeSeconds(m));
  const after = fs.fstatSync(fd, { bigint: true });
  const fixA = a !== undefined && after.atimeNs !== a ? a : undefined;
  const fixM = m !== undefined && after.mtimeNs !== m ? m : undefined;
  if (fixA === undefined && fixM === undefined) return;
  if (touchTimes(fd, fixA, fixM, budget) && !hasTimes(fd, a, m)) note(INEXACT);
}
