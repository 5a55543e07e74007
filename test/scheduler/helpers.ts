// Shared wiring for scheduler tests: a data directory whose compiled-tool cache is shared across
// runs and test files (compiling the bundled tools once takes a while), config + secrets pointing the model at the
// LLM emulator, a recording `deliver`, and waiting for scheduler events.
import { after, before } from 'node:test';
import type { LoadedConfig } from '../../src/config/load.ts';
import { configSchema } from '../../src/config/schema.ts';
import {
  createScheduler,
  type Scheduler,
  type SchedulerEvent,
  type SchedulerOptions,
} from '../../src/scheduler/index.ts';
import { createFileStore, type Store } from '../../src/store/index.ts';
import { compiledJobWorker } from '../compiled-src.ts';
import { type LlmEmulator, startLlmEmulator } from '../emulators/llm/index.ts';
import { shareCache, tempDir, waitUntil } from '../helpers.ts';

/** Starts the LLM emulator before the calling file's tests and closes it after them; `take` receives it. */
export function llmEmulatorForFile(take: (emu: LlmEmulator) => void): void {
  let started: LlmEmulator | undefined;
  before(async () => {
    started = await startLlmEmulator();
    take(started);
  });
  after(async () => {
    await started?.close();
  });
}

/** A fresh data directory; `cache/` is shared by every test run. */
export function dataDir(): string {
  return shareCache(tempDir('boxbot-sched-'));
}

/** Config for `dir` with the OpenAI preset as the model (pointed at the emulator by secrets). */
export function loadedConfig(dir: string, over: Record<string, unknown> = {}): LoadedConfig {
  return {
    config: configSchema.parse({ dataDir: dir, model: 'openai/gpt-4o-mini', ...over }),
    file: undefined,
    dataDir: dir,
  };
}

/** Secrets that send the model calls to `emu`. */
export function llmSecrets(emu: LlmEmulator, more: Record<string, string> = {}): Record<string, string> {
  return { OPENAI_API_KEY: 'sk-test-emulator-key', OPENAI_BASE_URL: emu.openaiBaseURL, ...more };
}

/** Events seen so far, and a way to wait for the next one that matches. */
export class EventLog {
  readonly events: SchedulerEvent[] = [];
  private waiters: { match: (e: SchedulerEvent) => boolean; resolve: (e: SchedulerEvent) => void }[] = [];

  readonly push = (e: SchedulerEvent): void => {
    this.events.push(e);
    for (const w of [...this.waiters]) {
      if (w.match(e)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  };

  /** Resolves with the first event (already seen after `from`, or coming) that matches. */
  wait<T extends SchedulerEvent['type']>(
    type: T,
    match: (e: Extract<SchedulerEvent, { type: T }>) => boolean = () => true,
    opts: { from?: number; timeoutMs?: number } = {},
  ): Promise<Extract<SchedulerEvent, { type: T }>> {
    const test = (e: SchedulerEvent) => e.type === type && match(e as Extract<SchedulerEvent, { type: T }>);
    const seen = this.events.slice(opts.from ?? 0).find(test);
    if (seen) return Promise.resolve(seen as Extract<SchedulerEvent, { type: T }>);
    const timeoutMs = opts.timeoutMs ?? 120_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no ${type} event within ${timeoutMs} ms; saw ${this.events.map((e) => e.type).join(', ')}`),
          ),
        timeoutMs,
      );
      this.waiters.push({
        match: test,
        resolve: (e) => (clearTimeout(timer), resolve(e as Extract<SchedulerEvent, { type: T }>)),
      });
    });
  }

  /** Resolves with the `n`-th event of `type` (1-based), right when it is emitted. */
  nth<T extends SchedulerEvent['type']>(
    type: T,
    n: number,
    timeoutMs?: number,
  ): Promise<Extract<SchedulerEvent, { type: T }>> {
    let seen = 0;
    return this.wait(type, () => ++seen === n, timeoutMs === undefined ? {} : { timeoutMs });
  }

  count(type: SchedulerEvent['type'], jobId?: string): number {
    return this.events.filter((e) => e.type === type && (jobId === undefined || ('jobId' in e && e.jobId === jobId)))
      .length;
  }
}

/** A post as the recording `deliver` saw it. */
export interface Posted {
  key: string;
  text: string;
  id: string;
}

/** A scheduler on a file store in a fresh data directory, delivering into `posted` unless told otherwise. */
export function setup(emu: LlmEmulator, over: Partial<SchedulerOptions> & { dir?: string; store?: Store } = {}) {
  const dir = over.dir ?? dataDir();
  const store = over.store ?? createFileStore(dir);
  const events = new EventLog();
  const posted: Posted[] = [];
  let n = 0;
  const opts: SchedulerOptions = {
    store,
    loaded: loadedConfig(dir),
    secrets: llmSecrets(emu),
    deliver: async (key, text, id) => {
      posted.push({ key, text, id });
      return [`m${++n}`];
    },
    onEvent: events.push,
    reloadMs: 0,
    workerFile: compiledJobWorker(),
    ...over,
  };
  const scheduler: Scheduler = createScheduler(opts);
  return { dir, store, events, posted, scheduler, opts };
}

/** Waits until `cond()` holds, polling; throws naming `what` after `timeoutMs`. */
export const until = (cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> =>
  waitUntil(cond, what, timeoutMs);

/** The text of the last user message of an OpenAI chat request body. */
export function lastUserText(body: { messages?: { role: string; content: unknown }[] }): string {
  const m = [...(body.messages ?? [])].reverse().find((x) => x.role === 'user');
  if (!m) return '';
  return typeof m.content === 'string'
    ? m.content
    : (m.content as { text?: string }[]).map((p) => p.text ?? '').join('');
}
