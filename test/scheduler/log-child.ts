// Run by log-format.test.ts in a child process: a scheduler whose logger writes human lines (with
// --pretty) or JSON, running one job through a real worker thread; everything lands on stderr.
import { createLogger } from '../../src/core/log.ts';
import type { LlmEmulator } from '../emulators/llm/index.ts';
import { setup } from './helpers.ts';

// No model call is made: the job names a model that does not exist, after the worker's runtime
// (and its tool registry, which logs each tool) is built.
const noModel = { openaiBaseURL: 'http://127.0.0.1:9/v1' } as LlmEmulator;
const log = createLogger({ level: 'info', pretty: process.argv.includes('--pretty') });
const ctx = setup(noModel, { log });
try {
  const job = await ctx.scheduler.add({
    name: 'nightly',
    cron: '0 3 * * *',
    target: 'telegram:-100123',
    prompt: 'hello',
    model: 'nosuch/model-9',
  });
  await (await ctx.scheduler.runNow(job.id)).done;
} finally {
  await ctx.scheduler.stop();
  await ctx.store.close();
}
