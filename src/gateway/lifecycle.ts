// Start and stop. Start: a single process queues its unfinished work first (resume.ts), starts
// the adapters with their command menus, resumes the approval questions, then re-drives the
// outbox every `redriveMs`; a replica starts holding leases, starts the adapters and the
// questions alike, then sweeps for unanswered work now and every `sweepMs`. Stop: runs are
// interrupted (they run again at the next start), adapters stopped side by side, in-flight work
// given 5 s; each is a named step, so a caller's deadline can say which one hung.
import type { ChannelAdapter, InboundMessage, IntakeOptions } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import { createStopSteps, type StopSteps } from '../core/stop-steps.ts';
import { GatewayStoppingError } from '../runner/ports.ts';
import type { CommandRegistry, GatewayCommandContext } from './commands/index.ts';
import type { GatewayContext } from './gateway-context.ts';
import type { Replicas } from './replicas.ts';
import type { Resume } from './resume.ts';

/** What start and stop drive beyond the context. */
export interface LifecycleDeps {
  commands: CommandRegistry<GatewayCommandContext>;
  handle(message: InboundMessage, intake?: IntakeOptions): Promise<void>;
  replicas: Replicas;
  resume: Resume;
}

/** Start and stop of the gateway `ctx`. */
export function createLifecycle(
  ctx: GatewayContext,
  d: LifecycleDeps,
): { start(): Promise<void>; stop(steps?: StopSteps): Promise<void> } {
  const { opts, log, owner } = ctx;
  let timer: NodeJS.Timeout | undefined;

  /** Runs `work` every `ms` (after the last run ended) until the gateway stops; a failure is logged as `what`. */
  function every(ms: number, work: () => Promise<void>, what: string): void {
    const tick = () => {
      timer = setTimeout(
        () =>
          void work()
            .catch((e: unknown) => log.warn({ err: errorMessage(e) }, what))
            .finally(() => ctx.stopping() || tick()),
        ms,
      ).unref();
    };
    tick();
  }

  /** The platform's own command menu (every registered command); typed commands work without it. */
  async function registerCommands(a: ChannelAdapter): Promise<void> {
    await a
      .setCommands?.(d.commands.menu())
      .catch((e: unknown) => log.warn({ channel: a.platform, err: errorMessage(e) }, 'commands not registered'));
  }

  /** Starts every adapter not left to the caller (deferStart), each with its menu. */
  async function startAdapters(): Promise<void> {
    for (const a of opts.adapters) {
      if (opts.deferStart?.(a)) continue;
      await a.start(d.handle);
      log.info({ channel: a.platform, bot: a.identity()?.name }, 'channel started');
      await registerCommands(a);
    }
  }

  async function start(): Promise<void> {
    // Replicas: adapters first (a message they hand over is accepted and run by its
    // conversation's owner), then the unanswered work is taken by the sweeps.
    if (owner) d.replicas.watch();
    const adaptersUp = owner ? undefined : await d.resume.queueUnfinished();
    try {
      await startAdapters();
    } finally {
      adaptersUp?.();
    }
    // Questions asked before a restart stay answerable until their time, then expire (saying so).
    await ctx.desk.resume().catch((e: unknown) => log.error({ err: errorMessage(e) }, 'pending approvals not resumed'));
    if (!owner) return every(opts.redriveMs ?? 30_000, d.resume.redrive, 'outbox re-drive failed');
    // What this replica owns is re-driven, what nobody owns (a dead replica's) is taken.
    await d.replicas.sweep().catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'sweep failed'));
    every(owner.sweepMs, d.replicas.sweep, 'sweep failed');
  }

  async function stop(steps: StopSteps = createStopSteps()): Promise<void> {
    ctx.stopped.abort();
    clearTimeout(timer);
    ctx.desk.stop();
    // Deliveries failing now are not retried: their entries wait for the next start, not for the deadline below.
    for (const q of ctx.queues.values()) q.stopRetrying();
    for (const s of ctx.conversations.values()) s.running?.abort(new GatewayStoppingError());
    // An adapter left to the caller (deferStart) is stopped by it too (the leader, as it steps down).
    // Side by side: one platform's slow close does not hold the others' connections open.
    await Promise.all(
      opts.adapters
        .filter((x) => !opts.deferStart?.(x))
        .map((a) =>
          steps
            .run(`${a.platform} adapter`, () => a.stop())
            .catch((e: unknown) => log.warn({ channel: a.platform, err: errorMessage(e) }, 'adapter stop failed')),
        ),
    );
    await steps.run('in-flight work', async () => {
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...ctx.inflight]), new Promise((r) => (deadline = setTimeout(r, 5000)))]);
      clearTimeout(deadline);
    });
    if (owner) await steps.run('conversation leases', () => owner.stop());
    for (const q of ctx.queues.values()) q.close();
  }

  return { start, stop };
}
