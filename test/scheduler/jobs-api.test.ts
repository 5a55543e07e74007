// The admin API for jobs, mounted the way main mounts it (at /admin/api/jobs, as the README says): list, add (400
// naming the field when refused), run now (waiting for the report, or 202), logs, and remove.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import { createAdminApi } from '../../src/gateway/admin-api.ts';
import { jobsApi } from '../../src/scheduler/index.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { llmEmulatorForFile, setup } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

test('jobs can be listed, added, run, inspected and removed over the admin API', async () => {
  const ctx = setup(emu, {
    isKnownTarget: (key) => (key.startsWith('telegram:') ? true : `no ${key.split(':')[0]} channel is running`),
  });
  const app = express();
  app.use(
    '/admin/api',
    createAdminApi({
      store: ctx.store,
      tools: () => ({ tools: [], problems: [] }),
      skills: () => ({ skills: [], problems: [] }),
      extra: { '/jobs': jobsApi(ctx.scheduler) },
    }),
  );
  const server: Server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/api`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };
  try {
    assert.deepEqual(await call('GET', '/jobs'), { status: 200, json: { jobs: [] } });
    const bad = await call('POST', '/jobs', { name: 'x', cron: '* * *', prompt: 'hi', target: 'telegram:1' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.field, 'cron');
    assert.match(bad.json.error, /^cron: "\* \* \*" has 3 fields/);
    const elsewhere = await call('POST', '/jobs', {
      name: 'x',
      cron: '0 9 * * *',
      prompt: 'hi',
      target: 'slack:T1:C1',
    });
    assert.deepEqual(elsewhere, {
      status: 400,
      json: { error: 'target: no slack channel is running', field: 'target' },
    });

    const added = await call('POST', '/jobs', {
      name: 'News',
      cron: '0 7 * * *',
      prompt: 'the news',
      target: 'telegram:1',
      access: 'chat-only',
    });
    assert.equal(added.status, 201);
    const id = added.json.job.id as string;
    assert.equal(added.json.job.access, 'chat-only');
    assert.deepEqual((await call('GET', `/jobs/${id}`)).json.job, added.json.job);
    const patched = await call('PATCH', `/jobs/${id}`, { cron: '30 7 * * *', timezone: 'Europe/Berlin' });
    assert.equal(patched.json.job.cron, '30 7 * * *');
    // The next run on the job's own wall clock, and as an instant.
    assert.match(patched.json.job.nextRun, /^\d{4}-\d\d-\d\d 07:30 Europe\/Berlin$/);
    assert.match(patched.json.job.nextRunAt, /^\d{4}-\d\d-\d\dT0[56]:30:00\.000Z$/);
    assert.equal((await call('GET', '/jobs')).json.jobs[0].nextRun, patched.json.job.nextRun);

    emu.script([llm.say('Today: sunshine.')]);
    const run = await call('POST', `/jobs/${id}/run?wait=1`);
    assert.equal(run.status, 200);
    assert.equal(run.json.text, 'Today: sunshine.');
    assert.equal(run.json.entry.delivered, 'm1');
    assert.deepEqual(
      ctx.posted.map((p) => p.text),
      ['Today: sunshine.'],
    );
    const logs = await call('GET', `/jobs/${id}/logs?limit=5`);
    assert.deepEqual(
      logs.json.logs.map((l: { outcome: string; trigger: string }) => [l.outcome, l.trigger]),
      [['final', 'manual']],
    );

    emu.script([llm.say('Second run.')]);
    const accepted = await call('POST', `/jobs/${id}/run`);
    assert.deepEqual(accepted, { status: 202, json: { accepted: id } });
    const busy = await call('POST', `/jobs/${id}/run`);
    assert.deepEqual(busy, { status: 409, json: { error: `job "${id}" is already running (overlap: skip)` } });
    await ctx.events.nth('run-end', 2);

    assert.deepEqual(await call('DELETE', `/jobs/${id}`), { status: 200, json: { removed: id } });
    assert.equal((await call('DELETE', `/jobs/${id}`)).status, 404);
    assert.equal((await call('POST', `/jobs/${id}/run`)).status, 404);
    assert.equal((await call('GET', `/jobs/${id}/logs`)).status, 404);
    emu.assertDone();
  } finally {
    await new Promise((r) => server.close(r));
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
});
