// Corrects jco's generated glue where it departs from the component model's canonical ABI, and
// takes its per-host-call bookkeeping off synchronous calls, by rewriting its text before the
// glue is cached. Each rewrite names the exact text it replaces; glue without that text
// (another jco version) is left as it is, so a jco upgrade can make calls slower, never wrong
// (test/sandbox/glue-patch.test.ts says when a rewrite stopped applying to the installed jco).
//
// Empty strings: the canonical ABI lowers every string by asking the guest's allocator for its
// place (`realloc(0, 0, 1, 0)` for an empty one). jco's glue skips that call and hands back
// pointer 1. The preview1 adapter lays argv and environ out through those calls (each string
// gets its place and the byte after it for the terminating NUL or "="), so an empty argument
// pointed at byte 1 of the guest's memory and an empty environment value was never terminated:
// "EMPTY=" ran on into the next variable.
//
// Host calls: jco 1.35 runs every call a guest makes into the host through its component-model
// async runtime, even a synchronous call of a synchronous function (every WASI 0.2 call here):
// a subtask with a waitable handle for the caller, a task for the host side linked to it, both
// resolved and torn down after the call, and a debug-log check that reads process.env about
// ten times. That was 0.6 ms of a 1 ms Rust tool call and most of its garbage (README,
// benchmarks). For the synchronous case none of it has an effect a guest can see: the host side
// cannot block, be cancelled or be waited on, so the subtask is created and removed within the
// call. The rewrite gives those calls a direct path: the may-leave check stays, the host
// function runs with the same argument lifting, result lowering, borrow release and trap
// marking as before, and the value it resolves with is what the guest gets back, as
// `subtask.getResult()` gave it. Async and manually-async calls keep jco's path unchanged.

/** jco's early return for an empty string in its UTF-8 lowering. */
const EMPTY_UTF8_SHORTCUT = 'if (s.length === 0) { return { ptr: 1, len: 0 }; }';

/** jco's debug logger: a process.env read per call site, on every host call. */
const DEBUG_LOG = `  const _debugLog = (...args) => {
    if (!globalThis?.process?.env?.JCO_DEBUG) { return; }
    console.debug(...args);
  };`;

/** Read once per instance instead; worker output never reaches a user anyway (pool.ts). */
const DEBUG_LOG_ONCE = `  const _debugLogOn = !!globalThis?.process?.env?.JCO_DEBUG;
  const _debugLog = (...args) => {
    if (!_debugLogOn) { return; }
    console.debug(...args);
  };`;

/** The head of jco's lowering wrapper, which every guest-to-host call enters. */
const LOWER_HEAD = `  function _lowerImportBackwardsCompat(args) {
    const params = [...arguments].slice(1);
`;

/**
 * The direct path. `_BoxbotHostCall` stands in for jco's host task inside a rewritten
 * trampoline: it keeps the value the trampoline resolves with; reject/exit have nothing to tear
 * down. A rewritten trampoline takes its stand-in first thing and refuses to run without one.
 */
const LOWER_HEAD_DIRECT = `  class _BoxbotHostCall {
    constructor() { this.value = undefined; }
    componentIdx() { return -1; }
    id() { return 0; }
    resolve(results) { this.value = results[0]; }
    exit() {}
    setErrored() {}
    reject() {}
    getParentSubtask() { return undefined; }
  }
  let _boxbotHostCall;
  function _boxbotTakeHostCall() {
    const call = _boxbotHostCall;
    _boxbotHostCall = undefined;
    if (!call) { throw new Error('boxbot: a host call ran outside its lowering'); }
    return call;
  }
${LOWER_HEAD}    const direct = args.importFn.boxbotDirect === true;
    if (direct && !args.isAsync && !args.isManualAsync && !args.funcTypeIsAsync) {
      _checkMayLeave(args.componentIdx);
      const call = new _BoxbotHostCall();
      _boxbotHostCall = call;
      args.importFn.apply(null, params);
      return call.value;
    }
`;

/** One trampoline (jco's host-side wrapper of one import): name, parameters, body, export name. */
const TRAMPOLINE =
  /\n {2}const (_trampoline\d+) = function\(([^)]*)\) \{\n([\s\S]*?)\n {2}\}\n {2}\1\.fnName = '([^']*)';/g;

/**
 * A trampoline's task set-up for a synchronous host function: a host task (component -1, not
 * async) linked to the subtask its lowering made. Matched whole, so a trampoline that does
 * anything else there keeps jco's path.
 */
const TASK_ARGS = [
  "entryFnName: '[^'\\n]*'",
  'getCallbackFn: \\(\\) => null',
  'callbackFnName: null',
  "errHandling: '[a-z-]+'",
  'callingWasmExport: false',
];
const HOST_TASK_SETUP = new RegExp(
  [
    '    const hostProvided = true;',
    '    ',
    '    let parentTask;',
    '    let task;',
    '    let subtask;',
    '    ',
    '    const createTask = \\(\\) => \\{',
    '      const results = createNewCurrentTask\\(\\{',
    '        componentIdx: -1,',
    '        isAsync: false,',
    `(?:        (?:${TASK_ARGS.join('|')}),\\n)+      \\}\\);`,
    '      task = results\\[0\\];',
    '    \\};',
    '    ',
    '    taskCreation: \\{',
    '      parentTask = getCurrentTask\\(',
    '      \\d+,',
    '      _getGlobalCurrentTaskMeta\\(\\d+\\)\\?\\.taskID,',
    '      \\)\\?\\.task;',
    '      ',
    '      if \\(!parentTask\\) \\{',
    '        createTask\\(\\);',
    '        break taskCreation;',
    '      \\}',
    '      ',
    '      createTask\\(\\);',
    '      ',
    '      if \\(hostProvided\\) \\{',
    '        subtask = parentTask\\.getLatestSubtask\\(\\);',
    '        if \\(!subtask\\) \\{',
    '          throw new Error\\(`Missing subtask [^\\n]*`\\);',
    '        \\}',
    '        task\\.setParentSubtask\\(subtask\\);',
    '      \\}',
    '    \\}',
    '    ',
    '    const started = task\\.enterSync\\(\\);\\n',
  ].join('\\n'),
);

/** What a rewritten trampoline may still ask of its task (all answered by _BoxbotHostCall). */
const HOST_TASK_USES = new Set(['componentIdx', 'id', 'resolve', 'exit', 'setErrored', 'reject', 'getParentSubtask']);

/** How many trampolines took the direct path (tests: the installed jco's glue still matches). */
export interface GluePatchReport {
  emptyStrings: boolean;
  debugLog: boolean;
  directHostCalls: number;
  trampolines: number;
}

/** Rewrites the trampolines that can take the direct path; returns the text and their count. */
function directHostCalls(text: string): { text: string; direct: number; total: number } {
  let direct = 0;
  let total = 0;
  const out = text.replace(TRAMPOLINE, (whole, name: string, params: string, body: string, fnName: string) => {
    total++;
    const setup = body.match(HOST_TASK_SETUP);
    if (!setup) return whole;
    const rest = body.slice((setup.index ?? 0) + setup[0].length);
    // After the set-up the trampoline may use its task only as the stand-in allows, and never
    // the parent task, subtask or `started` that the set-up defined.
    if (/\b(parentTask|subtask|started|hostProvided|createTask)\b/.test(rest)) return whole;
    for (const use of rest.matchAll(/\btask\.([A-Za-z]+)\(/g)) if (!HOST_TASK_USES.has(use[1]!)) return whole;
    direct++;
    const before = body.slice(0, setup.index);
    return (
      `\n  const ${name} = function(${params}) {\n${before}    const task = _boxbotTakeHostCall();\n${rest}\n  }` +
      `\n  ${name}.fnName = '${fnName}';\n  ${name}.boxbotDirect = true;`
    );
  });
  return { text: out, direct, total };
}

/** The glue with its corrections, and what was applied. */
export function patchGlueReport(glue: Uint8Array): { glue: Uint8Array; report: GluePatchReport } {
  let text = Buffer.from(glue).toString('utf8');
  const report: GluePatchReport = { emptyStrings: false, debugLog: false, directHostCalls: 0, trampolines: 0 };
  if (text.includes(EMPTY_UTF8_SHORTCUT)) {
    // Without the shortcut the general path runs: realloc(0, 0, 1, 0), then an empty copy.
    text = text.replace(EMPTY_UTF8_SHORTCUT, () => '');
    report.emptyStrings = true;
  }
  if (text.includes(DEBUG_LOG)) {
    text = text.replace(DEBUG_LOG, () => DEBUG_LOG_ONCE);
    report.debugLog = true;
  }
  // Both halves or neither: a rewritten trampoline needs the direct path in its lowering.
  if (text.split(LOWER_HEAD).length === 2) {
    const rewritten = directHostCalls(text);
    report.trampolines = rewritten.total;
    if (rewritten.direct > 0) {
      text = rewritten.text.replace(LOWER_HEAD, () => LOWER_HEAD_DIRECT);
      report.directHostCalls = rewritten.direct;
    }
  }
  return { glue: Buffer.from(text, 'utf8'), report };
}

/** The glue with its corrections. */
export function patchGlue(glue: Uint8Array): Uint8Array {
  return patchGlueReport(glue).glue;
}
