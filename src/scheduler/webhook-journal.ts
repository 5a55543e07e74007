// Webhook events outlive the process that accepted them. The trigger claims a delivery and
// journals its event in one store write (HookDeliveryStore.claim), then answers 202; the event
// is dropped from the journal (`finish`) only once its run has ended and the run's log entry is
// written. A process that died in between leaves the event in the journal, and `recover` (at
// start, then every minute) runs it: exactly once, because
// - an event whose run log entry exists (the death came after the run, before `finish`) is only
//   finished, not run again;
// - an event running in this process is skipped, and with replicas on one database each event
//   being run holds a lease (`hook-event:<hook>:<delivery>`) renewed while it runs, so another
//   replica takes it over only once the holder is gone.
// - the run's answer goes through the gateway's outbox under an entry named by the run id
//   (webhookAnswerId), and the event is finished as soon as that entry is durable, before
//   anything is sent: the outbox then delivers it exactly as it delivers chat replies (resumed
//   at the next start). An event found journaled with its answer still in the outbox (a death
//   between the two writes) is only finished too.
// What a death after the hand-over can lose is the run's log entry, never post the answer twice.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import type { DeliveryStore, HookDeliveryStore, HookEvent, JobStore, LeaseStore } from '../store/index.ts';
import { SchedulerError } from './errors.ts';
import type { Scheduler } from './scheduler.ts';
import type { RunLogEntry } from './types.ts';

/** The outbox entry id of a webhook run's answer: the same for every run of one event. */
export const webhookAnswerId = (jobId: string, runId: string): string => `job:${jobId}:${runId}`;

/** Starts webhook events' runs and runs the ones a dead process left unfinished. */
export interface WebhookJournal {
  /** Starts the run of an event just claimed (throws as `runNow` does: nothing started). */
  start(hook: string, delivery: string, event: HookEvent): Promise<void>;
  /** Runs the journaled events no process is running; resolves with how many were started. */
  recover(): Promise<number>;
  /** Recovers now and then every `everyMs` until `stop`. */
  startSweep(everyMs?: number): void;
  /** Stops the sweep and the leases' renewals (runs in flight go on; their events stay journaled). */
  stop(): void;
}

/** What the journal needs. */
export interface WebhookJournalOptions {
  jobs: Pick<JobStore, 'list' | 'logs'>;
  deliveries: HookDeliveryStore;
  runNow: Scheduler['runNow'];
  /** With replicas on one database: the leases that keep an event to the replica running it. */
  leases?: LeaseStore;
  /** The outbox, to find an answer handed over before the event was finished. */
  outbox?: Pick<DeliveryStore, 'pendingOutbox'>;
  /** This process's name among the lease holders. */
  holder?: string;
  /** How long an event's lease lasts unrenewed (default 30 s; renewed every third of it). */
  leaseMs?: number;
  log?: Logger;
}

/** A journal of webhook events over `o.deliveries`. */
export function createWebhookJournal(o: WebhookJournalOptions): WebhookJournal {
  const log = o.log ?? silentLogger;
  const leaseMs = o.leaseMs ?? 30_000;
  const holder = o.holder ?? 'this-process';
  /** Events running in this process (`hook\ndelivery`), with their lease renewals. */
  const running = new Map<string, NodeJS.Timeout | undefined>();
  let sweep: NodeJS.Timeout | undefined;
  let stopped = false;
  const leaseName = (hook: string, delivery: string) => `hook-event:${hook}:${delivery}`;

  /** Takes the event's lease (true without leases); false while another replica holds it. */
  async function take(hook: string, delivery: string): Promise<boolean> {
    if (!o.leases) return true;
    return (await o.leases.acquire(leaseName(hook, delivery), holder, leaseMs)) !== undefined;
  }

  function hold(hook: string, delivery: string): void {
    const key = `${hook}\n${delivery}`;
    const renew = o.leases
      ? setInterval(() => {
          void o.leases
            ?.acquire(leaseName(hook, delivery), holder, leaseMs)
            .catch((e: unknown) =>
              log.warn({ hook, delivery, err: errorMessage(e) }, 'webhook event lease not renewed'),
            );
        }, leaseMs / 3)
      : undefined;
    renew?.unref();
    running.set(key, renew);
  }

  async function done(hook: string, delivery: string, finish: boolean): Promise<void> {
    const key = `${hook}\n${delivery}`;
    clearInterval(running.get(key));
    running.delete(key);
    try {
      if (finish) await o.deliveries.finish(hook, delivery);
      await o.leases?.release(leaseName(hook, delivery), holder);
    } catch (e) {
      // Still journaled: the next sweep finds its log entry and only finishes it.
      log.warn({ hook, delivery, err: errorMessage(e) }, 'webhook event not marked as run');
    }
  }

  /** Starts the event's run unless this process already runs it (checked and held in one step). */
  async function begin(hook: string, delivery: string, event: HookEvent): Promise<boolean> {
    if (running.has(`${hook}\n${delivery}`)) return false;
    hold(hook, delivery);
    let started: { done: Promise<unknown> };
    try {
      started = await o.runNow(event.jobId, {
        trigger: 'webhook',
        event: { hook, json: event.json, delivery },
        runId: event.runId,
      });
    } catch (e) {
      await done(hook, delivery, false);
      throw e;
    }
    started.done.then(
      () => done(hook, delivery, true),
      // A run the scheduler dropped before it began (it stopped) stays journaled for the next start.
      (e: unknown) => done(hook, delivery, !(e instanceof SchedulerError && e.code === 'stopped')),
    );
    return true;
  }

  async function recoverOne(hook: string, delivery: string, event: HookEvent): Promise<boolean> {
    if (running.has(`${hook}\n${delivery}`) || !(await take(hook, delivery))) return false;
    const logs = await o.jobs.logs(event.jobId).catch(() => []);
    if (logs.some((l) => (l as RunLogEntry).runId === event.runId)) {
      await done(hook, delivery, true);
      return false;
    }
    const answer = webhookAnswerId(event.jobId, event.runId);
    if (o.outbox && (await o.outbox.pendingOutbox()).some((e) => e.id === answer)) {
      log.info({ hook, delivery, job: event.jobId }, 'webhook event answered before a restart: its outbox delivers it');
      await done(hook, delivery, true);
      return false;
    }
    try {
      // The request that claimed it may have started it meanwhile: then it runs once, there.
      if (!(await begin(hook, delivery, event))) return false;
    } catch (e) {
      if (e instanceof SchedulerError && e.code === 'not-found') {
        log.warn({ hook, delivery, job: event.jobId }, 'webhook event dropped: its job was removed');
        await o.deliveries.finish(hook, delivery);
      } else {
        await o.leases?.release(leaseName(hook, delivery), holder).catch(() => undefined);
        log.warn({ hook, delivery, err: errorMessage(e) }, 'webhook event not run yet; tried again later');
      }
      return false;
    }
    log.info({ hook, delivery, job: event.jobId, run: event.runId }, 'webhook event accepted before a restart: run');
    return true;
  }

  async function recover(): Promise<number> {
    let n = 0;
    const hooks = new Set((await o.jobs.list()).flatMap((j) => (j.trigger ? [j.trigger.webhook] : [])));
    for (const hook of hooks)
      for (const { delivery, ...event } of await o.deliveries.unfinished(hook)) {
        if (stopped) return n;
        if (await recoverOne(hook, delivery, event)) n++;
      }
    return n;
  }

  return {
    async start(hook, delivery, event) {
      // Another replica's sweep may have found the journaled event first: then it runs it.
      if (await take(hook, delivery)) await begin(hook, delivery, event);
    },
    recover,
    startSweep(everyMs = 60_000) {
      const tick = () =>
        void recover()
          .catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'webhook events not recovered'))
          .finally(() => {
            if (!stopped) sweep = setTimeout(tick, everyMs).unref();
          });
      tick();
    },
    stop() {
      stopped = true;
      clearTimeout(sweep);
      for (const renew of running.values()) clearInterval(renew);
    },
  };
}
