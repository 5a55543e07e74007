// The worker↔main bridge for guest HTTP. The guest is synchronous, so the worker posts a
// request and blocks on a shared slot (Atomics.wait); the main thread runs it through the
// broker under the grant it holds for the call (never the worker's copy), posts the outcome
// and notifies. Terminating the worker closes the bridge and aborts whatever is in flight.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { NetBridge, NetOutcome, NetRequest } from '../host/context.ts';
import type { NetworkGrant } from '../types.ts';
import type { NetBroker } from './broker.ts';

type Msg = { id: number; req: NetRequest } | { id: number; cancel: true };

/** Worker side. */
export function createWorkerNetBridge(port: MessagePort, sab: SharedArrayBuffer): NetBridge {
  const signal = new Int32Array(sab);
  const done = new Map<number, NetOutcome>();
  let next = 1;
  const drain = () => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const { id, outcome } = m.message as { id: number; outcome: NetOutcome };
      done.set(id, outcome);
    }
  };
  return {
    start(req) {
      const id = next++;
      port.postMessage({ id, req } satisfies Msg);
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
  getGrant: () => NetworkGrant | undefined,
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
    const grant = getGrant();
    if (!grant || grant.allow.length === 0) {
      reply(m.id, { ok: false, error: { tag: 'HTTP-request-denied' }, message: 'this tool has no network access' });
      return;
    }
    const ac = new AbortController();
    inflight.set(m.id, ac);
    broker.execute(m.req, grant, ac.signal).then(
      (o) => reply(m.id, o),
      (e: Error) => reply(m.id, { ok: false, error: { tag: 'internal-error', val: e.message }, message: e.message }),
    );
  });
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
