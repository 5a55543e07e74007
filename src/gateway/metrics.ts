// The gateway's Prometheus metrics, through prom-client: message, run, tool and error counters,
// latency histograms, gauges for the work in hand (agent runs in flight, queue depth per
// platform, answers waiting in the outbox), and the process and Node runtime metrics.
import { collectDefaultMetrics, Gauge, Histogram, Counter as PromCounter, Registry } from 'prom-client';

type Labels = Record<string, string>;

/** Latency buckets (seconds): from a cached command's reply to a long tool-using run. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Labels in name order, so a series reads the same whichever order the caller wrote them in. */
const sorted = (labels: Labels): Labels => {
  const keys = Object.keys(labels);
  // Most series have one label or none (counted for every message): nothing to order.
  if (keys.length < 2) return labels;
  return Object.fromEntries(keys.sort().map((k) => [k, labels[k]!]));
};

/**
 * A monotonically increasing count, exported through prom-client. It also keeps its values in
 * hand, because prom-client reads them back only asynchronously and the gateway's tests (and
 * anything that reports a count inline) read one synchronously.
 */
export class Counter {
  private readonly values = new Map<string, number>();
  private readonly prom: PromCounter<string>;
  constructor(registry: Registry, name: string, help: string, labelNames: string[]) {
    this.prom = new PromCounter({ name, help, labelNames, registers: [registry] });
  }
  /** Adds `n` (default 1) for `labels`. */
  inc(labels: Labels = {}, n = 1): void {
    const l = sorted(labels);
    this.prom.inc(l, n);
    const k = JSON.stringify(l);
    this.values.set(k, (this.values.get(k) ?? 0) + n);
  }
  /** The current value for `labels`. */
  get(labels: Labels = {}): number {
    return this.values.get(JSON.stringify(sorted(labels))) ?? 0;
  }
  /** Every series counted so far, with its labels (the dashboard's overview). */
  all(): { labels: Labels; value: number }[] {
    return [...this.values].map(([k, value]) => ({ labels: JSON.parse(k) as Labels, value }));
  }
}

/** The sum of a gauge's series, as prom-client reads them back. */
export function sumGauge(read: { values: { value: number }[] }): number {
  return read.values.reduce((s, v) => s + v.value, 0);
}

// The process and Node metrics (CPU, memory, event-loop lag, GC, handles) describe the process,
// not one gateway: they are collected once, into their own registry, whichever gateways a
// process (a test run) creates.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The gateway's metrics. */
export function createMetrics() {
  const registry = new Registry();
  const counter = (name: string, help: string, labelNames: string[]) => new Counter(registry, name, help, labelNames);
  let outboxSource: (() => Promise<number>) | undefined;
  const m = {
    messagesIn: counter('boxbot_messages_in_total', 'Messages received, by platform', ['platform']),
    messagesOut: counter('boxbot_messages_out_total', 'Messages sent (final answer chunks), by platform', ['platform']),
    duplicates: counter('boxbot_duplicates_total', 'Redelivered events dropped, by platform', ['platform']),
    refused: counter('boxbot_refused_total', 'Messages refused by policy, by platform and reason', [
      'platform',
      'reason',
    ]),
    agentRuns: counter('boxbot_agent_runs_total', 'Agent runs, by outcome', ['outcome']),
    toolCalls: counter('boxbot_tool_calls_total', 'Tool calls, by tool and result', ['result', 'tool']),
    errors: counter('boxbot_errors_total', 'Errors, by scope', ['scope']),
    rateLimited: counter('boxbot_rate_limited_total', 'Platform 429 answers, by platform', ['platform']),
    poisonInputs: counter(
      'boxbot_poison_inputs_total',
      'Files left out because the process died twice while working on them (poison input), by platform',
      ['platform'],
    ),
    uncertain: counter(
      'boxbot_delivery_uncertain_total',
      'Sends made again after a crash that the platform may show twice (no idempotency there), by platform and kind',
      ['platform', 'kind'],
    ),
    runSeconds: new Histogram({
      name: 'boxbot_agent_run_seconds',
      help: 'Agent run time',
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    replySeconds: new Histogram({
      name: 'boxbot_reply_latency_seconds',
      help: 'Time from message received to answer delivered, by platform',
      labelNames: ['platform'],
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    runsInFlight: new Gauge({
      name: 'boxbot_agent_runs_in_flight',
      help: 'Agent runs executing now',
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'boxbot_queue_depth',
      help: 'Messages and resumed answers waiting for their turn (their conversation, a run slot), by platform',
      labelNames: ['platform'],
      registers: [registry],
    }),
    outboxPending: new Gauge({
      name: 'boxbot_outbox_pending',
      help: 'Answers in the outbox not yet fully delivered',
      registers: [registry],
      async collect() {
        if (outboxSource) this.set(await outboxSource());
      },
    }),
  };
  return {
    ...m,
    /** Where the outbox gauge reads its count at each scrape (the gateway sets its store's). */
    countOutboxWith(source: () => Promise<number>): void {
      outboxSource = source;
    },
    /** The exposition's content type. */
    contentType: registry.contentType,
    /** The exposition text for /metrics: the gateway's series, then the process's. */
    render: async (): Promise<string> => `${await registry.metrics()}\n${await processMetrics().metrics()}`,
  };
}

/** The metrics object the gateway and server share. */
export type Metrics = ReturnType<typeof createMetrics>;
