// Prometheus metrics in the text exposition format: counters and histograms with labels,
// enough for /metrics (messages in/out, agent runs, tool calls, errors, latencies).

type Labels = Record<string, string>;

const key = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');

/** A monotonically increasing count. */
export class Counter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  /** Adds `n` (default 1) for `labels`. */
  inc(labels: Labels = {}, n = 1): void {
    const k = key(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + n);
  }
  /** The current value for `labels`. */
  get(labels: Labels = {}): number {
    return this.values.get(key(labels)) ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

/** Observations in cumulative buckets (seconds). */
export class Histogram {
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[] = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
  ) {}
  /** Records one observation of `seconds`. */
  observe(seconds: number, labels: Labels = {}): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (seconds <= b) s.counts[i]!++;
    });
    s.sum += seconds;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const sep = k ? `${k},` : '';
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${sep}le="${b}"} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket{${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ''} ${s.sum}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return lines.join('\n');
  }
}

/** The gateway's metrics. */
export function createMetrics() {
  const m = {
    messagesIn: new Counter('boxbot_messages_in_total', 'Messages received, by platform'),
    messagesOut: new Counter('boxbot_messages_out_total', 'Messages sent (final answer chunks), by platform'),
    duplicates: new Counter('boxbot_duplicates_total', 'Redelivered events dropped, by platform'),
    refused: new Counter('boxbot_refused_total', 'Messages refused by policy, by platform and reason'),
    agentRuns: new Counter('boxbot_agent_runs_total', 'Agent runs, by outcome'),
    toolCalls: new Counter('boxbot_tool_calls_total', 'Tool calls, by tool and result'),
    errors: new Counter('boxbot_errors_total', 'Errors, by scope'),
    rateLimited: new Counter('boxbot_rate_limited_total', 'Platform 429 answers, by platform'),
    runSeconds: new Histogram('boxbot_agent_run_seconds', 'Agent run time'),
    replySeconds: new Histogram(
      'boxbot_reply_latency_seconds',
      'Time from message received to answer delivered, by platform',
    ),
  };
  return {
    ...m,
    /** The exposition text for /metrics. */
    render: () =>
      `${Object.values(m)
        .map((x) => x.render())
        .join('\n\n')}\n`,
  };
}

/** The metrics object the gateway and server share. */
export type Metrics = ReturnType<typeof createMetrics>;
