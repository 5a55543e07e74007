// The worker↔main bridge for guest HTTP. The guest is synchronous, so the worker posts a
// request and blocks on a shared slot (Atomics.wait); the main thread runs it through the
// broker under the grant it holds for the call (never the worker's copy), posts the outcome
// and notifies. Terminating the worker closes the bridge and aborts whatever is in flight.
// Per call, at most MAX_CONCURRENT_REQUESTS run at once; later ones wait their turn (FIFO, up
// to MAX_WAITING_REQUESTS, past that `connection-limit-reached`), and all response bodies of
// the call together are capped (NetCall.maxResponseBytes).
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import type { NetBridge, NetOutcome, NetRequest } from '../host/context.ts';
import type { NetworkGrant } from '../types.ts';
import type { NetBroker } from './broker.ts';

/** `call` is the pool's id of the call that started the request. */
type Msg = { id: number; call: number; req: NetRequest } | { id: number; cancel: true };

/** Requests of one call that run at once; a guest starting more makes them wait. */
export const MAX_CONCURRENT_REQUESTS = 8;
/** Requests of one call that may wait for a turn; beyond, they fail at once. */
export const MAX_WAITING_REQUESTS = 64;

/** One call's network on the main side: its grant, and what it has in flight and received. */
export class NetCall {
  active = 0;
  /** Response body bytes received by this call so far (the broker adds to it). */
  received = 0;
  readonly waiting: (() => void)[] = [];
  /** Requests of this call not yet answered, waiting or running. */
  readonly open = new Set<AbortController>();
  constructor(
    /** The pool's id of the call; a request from another call is never served under this grant. */
    readonly id: number,
    readonly grant: NetworkGrant,
    readonly maxResponseBytes: number,
  ) {}

  /** The call is over (exit, trap, timeout, cancel): nothing of it stays in flight. */
  end(): void {
    for (const ac of this.open) ac.abort();
    this.open.clear();
    this.waiting.length = 0;
  }
}

/** Worker side; `forCall` names the call whose guest now runs (its requests carry it). */
export function createWorkerNetBridge(
  port: MessagePort,
  sab: SharedArrayBuffer,
): NetBridge & { forCall(id: number): void } {
  const signal = new Int32Array(sab);
  const done = new Map<number, NetOutcome>();
  let next = 1;
  let call = 0;
  const drain = () => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const { id, outcome } = m.message as { id: number; outcome: NetOutcome };
      done.set(id, outcome);
    }
  };
  return {
    forCall(id) {
      call = id;
    },
    start(req) {
      const id = next++;
      port.postMessage({ id, call, req } satisfies Msg);
      return id;
    },
    poll(id) {
      drain();
      return done.has(id);
    },
    wait(id, timeoutMs) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const seen = Atomics.load(signal, 0);
        drain();
        if (done.has(id)) return;
        const left = until - Date.now();
        if (left <= 0) return;
        Atomics.wait(signal, 0, seen, left);
      }
    },
    take(id) {
      drain();
      const o = done.get(id);
      if (!o) throw new Error(`net request ${id} has not completed`);
      done.delete(id);
      return o;
    },
    cancel(id) {
      done.delete(id);
      port.postMessage({ id, cancel: true } satisfies Msg);
    },
  };
}

/** Main side: serves one worker's requests until closed. */
export function serveNetBridge(
  port: MessagePort,
  sab: SharedArrayBuffer,
  broker: NetBroker,
  getCall: () => NetCall | undefined,
): { close(): void } {
  const signal = new Int32Array(sab);
  const inflight = new Map<number, AbortController>();
  let closed = false;
  const reply = (id: number, outcome: NetOutcome) => {
    inflight.delete(id);
    if (closed) return;
    port.postMessage({ id, outcome });
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  port.on('message', (m: Msg) => {
    if ('cancel' in m) {
      inflight.get(m.id)?.abort();
      inflight.delete(m.id);
      return;
    }
    // Messages of two ports are not ordered: a request of a call that already ended may arrive
    // after the next call began on this worker, and must not borrow that call's grant.
    const found = getCall();
    const call = found?.id === m.call ? found : undefined;
    if (!call || call.grant.allow.length === 0) {
      reply(m.id, { ok: false, error: { tag: 'HTTP-request-denied' }, message: 'this tool has no network access' });
      return;
    }
    if (call.active >= MAX_CONCURRENT_REQUESTS && call.waiting.length >= MAX_WAITING_REQUESTS) {
      const message = `more than ${MAX_CONCURRENT_REQUESTS + MAX_WAITING_REQUESTS} requests at once`;
      reply(m.id, { ok: false, error: { tag: 'connection-limit-reached' }, message });
      return;
    }
    const ac = new AbortController();
    inflight.set(m.id, ac);
    call.open.add(ac);
    // Cancelled (or the call ended) while waiting: it never starts and takes no turn.
    const start = () => {
      if (ac.signal.aborted) return;
      call.active++;
      broker
        .execute(m.req, call.grant, ac.signal, call)
        .then(
          // An aborted request's outcome has no reader left (the guest or the call let it go).
          (o) => (ac.signal.aborted ? inflight.delete(m.id) : reply(m.id, o)),
          (e: Error) =>
            reply(m.id, { ok: false, error: { tag: 'internal-error', val: e.message }, message: e.message }),
        )
        .finally(() => {
          call.open.delete(ac);
          call.active--;
          pump(call);
        });
    };
    call.waiting.push(start);
    pump(call);
  });
  const pump = (call: NetCall) => {
    while (call.active < MAX_CONCURRENT_REQUESTS && call.waiting.length > 0) call.waiting.shift()!();
  };
  port.unref();
  return {
    close() {
      closed = true;
      for (const ac of inflight.values()) ac.abort();
      inflight.clear();
      port.close();
    },
  };
}
