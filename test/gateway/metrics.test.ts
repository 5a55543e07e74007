// /metrics as a Prometheus scrape of a running gateway sees it: the counters and latency
// histograms by platform, the work in hand (runs in flight, queue depth, outbox backlog) while
// it is in hand, and the process and Node runtime series.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BuiltinTool } from '../../src/agent/tools/builtin.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { callTools, reply, scriptedModel } from '../agent/loop/scripted.ts';
import { tempDir } from '../helpers.ts';
import { FakeAdapter, FakeAgent, inboundMessage, MemoryGatewayStore, memoryLeases, until } from './fakes.ts';

/** The value of one series in an exposition text (undefined when absent). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const cluster of [false, true])
  test(`a scrape shows runs in flight, the queue behind them, the outbox backlog, then the totals${
    cluster ? ' (replicas)' : ''
  }`, async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const agent = new FakeAgent(async (r) => {
      if (r.message.text === 'slow') await gate;
      return `echo: ${r.message.text}`;
    });
    const adapter = new FakeAdapter();
    const store = new MemoryGatewayStore();
    const gw = createGateway({
      config: configSchema.parse({}),
      adapters: [adapter],
      agent,
      store,
      outbound: { backoffMs: 5 },
      ...(cluster ? { cluster: { leases: memoryLeases(), holder: 'replica-1' } } : {}),
    });
    await gw.start();
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, metrics: gw.metrics, routes: [] });
    const scrape = async () => {
      const res = await fetch(`${server.url}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    try {
      await adapter.say('slow');
      await adapter.say('next');
      await until(() => agent.seen.length === 1, 'the first run started');
      // An answer for a platform with no adapter here stays in the outbox: the backlog a user alerts on.
      await store.putOutbox({
        id: 'stuck',
        conversationKey: 'slack:T1:C1',
        target: { conversationKey: 'slack:T1:C1', chatId: 'C1' },
        chunks: ['hello'],
        receipts: [null],
        createdAt: new Date().toISOString(),
      });
      const busy = await scrape();
      assert.equal(sample(busy, 'boxbot_agent_runs_in_flight'), 1);
      assert.equal(sample(busy, 'boxbot_queue_depth{platform="telegram"}'), 1, 'the second message waits');
      assert.equal(sample(busy, 'boxbot_outbox_pending'), 1);

      release();
      await gw.idle();
      const done = await scrape();
      assert.equal(sample(done, 'boxbot_agent_runs_in_flight'), 0);
      assert.equal(sample(done, 'boxbot_queue_depth{platform="telegram"}'), 0);
      assert.equal(sample(done, 'boxbot_messages_in_total{platform="telegram"}'), 2);
      assert.equal(sample(done, 'boxbot_messages_out_total{platform="telegram"}'), 2);
      assert.equal(sample(done, 'boxbot_agent_runs_total{outcome="final"}'), 2);
      assert.equal(sample(done, 'boxbot_reply_latency_seconds_count{platform="telegram"}'), 2);
      assert.equal(sample(done, 'boxbot_reply_latency_seconds_bucket{le="+Inf",platform="telegram"}'), 2);
      assert.equal(sample(done, 'boxbot_agent_run_seconds_count'), 2);
      // The process and Node runtime, for the dashboards every Node service has.
      for (const series of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
      ]) {
        assert.ok((sample(done, series) ?? 0) > 0, `${series} is reported`);
      }
      assert.match(done, /^nodejs_eventloop_lag_seconds \d/m);
      assert.match(done, /^# TYPE boxbot_agent_runs_total counter$/m);
    } finally {
      release();
      await server.close();
      await gw.stop();
    }
  });

test('a label order written either way is one series', async () => {
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [new FakeAdapter()],
    agent: new FakeAgent(),
    store: new MemoryGatewayStore(),
  });
  gw.metrics.toolCalls.inc({ tool: 'read', result: 'ok' });
  gw.metrics.toolCalls.inc({ result: 'ok', tool: 'read' });
  assert.equal(gw.metrics.toolCalls.get({ tool: 'read', result: 'ok' }), 2);
  assert.match(await gw.metrics.render(), /^boxbot_tool_calls_total\{result="ok",tool="read"\} 2$/m);
});

test('tool calls are counted by registered tool name; names the model invents are one "unknown" series', async (t) => {
  const metrics = createMetrics();
  const echo: BuiltinTool = {
    name: 'echo',
    description: 'echo',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    permissionLevel: 'None',
    run: async () => ({ content: 'echoed', isError: false }),
  };
  const provider = scriptedModel(t, [
    callTools([
      ['inv_tool_a1', {}],
      ['inv_tool_a2', {}],
      ['echo', {}],
    ]),
    reply('done'),
  ]);
  const runner = createAgentRunner({
    store: createMemoryStore(),
    deps: {
      resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
      registry: noWasm,
      sandbox: noSandbox,
      costOf: () => 0,
      builtins: [echo],
    },
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
    metrics,
  });
  const message = inboundMessage('go');
  const r = await runner.run({
    message,
    policy: resolvePolicy(configSchema.parse({}), message),
    signal: new AbortController().signal,
    onEvent: () => undefined,
  });
  assert.equal(r.text, 'done');
  assert.equal(metrics.toolCalls.get({ tool: 'echo', result: 'ok' }), 1);
  assert.equal(metrics.toolCalls.get({ tool: 'unknown', result: 'started' }), 2);
  assert.equal(metrics.toolCalls.get({ tool: 'unknown', result: 'error' }), 2);
  const text = await metrics.render();
  assert.doesNotMatch(text, /inv_tool/);
  assert.equal(sample(text, 'boxbot_tool_calls_total{result="error",tool="unknown"}'), 2);
});
