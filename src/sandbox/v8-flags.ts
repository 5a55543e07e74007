// The one V8 setting the sandbox makes, once per process (V8 flags are per process, shared by
// the main thread and every worker).
//
// jco's glue builds an instance in one generator function, `_initGenerator`, thousands of
// lines long, run once per instance: every call makes an instance, so V8 finds it hot and has
// TurboFan compile it on its background threads. Each compile takes seconds of CPU, and its
// result is of little use: the next instance runs it once more and is gone. On 2 cores that
// was 2.3 of the 4.7 ms of CPU a warm Rust call cost, taken from the calls' own threads (p90
// 5.9 ms -> 2.1 ms without it; README, benchmarks). The filter keeps TurboFan off that one
// name; everything else, boxbot's own code included, is optimized as before.
import { setFlagsFromString } from 'node:v8';

/** The glue function TurboFan is kept off (checked against the installed jco by glue-patch.test.ts). */
export const GLUE_INIT_FUNCTION = '_initGenerator';

let applied = false;

/** Sets the filter, unless the process was started with a TurboFan filter of its own. */
export function applySandboxV8Flags(): void {
  if (applied) return;
  applied = true;
  if (process.execArgv.some((a) => /^--turbo[-_]filter\b/.test(a))) return;
  setFlagsFromString(`--turbo-filter=-${GLUE_INIT_FUNCTION}`);
}
