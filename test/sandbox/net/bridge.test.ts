// The main-thread side of the network bridge with a recording broker: a request is served
// only under the grant of the call that started it, never under the next call's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import type { NetOutcome, NetRequest } from '../../../src/sandbox/host/context.ts';
import { NetCall, serveNetBridge } from '../../../src/sandbox/net/bridge.ts';
import type { NetBroker } from '../../../src/sandbox/net/broker.ts';
import { waitUntil } from '../../helpers.ts';

describe('network bridge', () => {
  it("a request of an ended call is refused, not run under the next call's grant", async () => {
    const executed: string[] = [];
    const broker: NetBroker = {
      async execute(req) {
        executed.push(req.url);
        return { ok: true, status: 200, headers: [], body: new Uint8Array(0) };
      },
    };
    const { port1, port2 } = new MessageChannel();
    const current = new NetCall(2, { allow: ['http://127.0.0.1:*'], block: [] }, 1 << 20);
    const bridge = serveNetBridge(port2, new SharedArrayBuffer(1024), broker, () => current);
    const answers = new Map<number, NetOutcome>();
    port1.on('message', (m: { id: number; outcome: NetOutcome }) => answers.set(m.id, m.outcome));
    const req = (url: string): NetRequest => ({ method: 'GET', url, headers: [], body: null });
    try {
      port1.postMessage({ id: 1, call: 1, req: req('http://127.0.0.1:1/late') });
      port1.postMessage({ id: 2, call: 2, req: req('http://127.0.0.1:1/current') });
      await waitUntil(() => answers.size === 2, 'both answers', 5_000);
      assert.deepEqual(executed, ['http://127.0.0.1:1/current']);
      assert.equal(answers.get(1)!.ok, false);
      assert.equal((answers.get(1) as { error: { tag: string } }).error.tag, 'HTTP-request-denied');
    } finally {
      bridge.close();
      port1.close();
    }
  });
});
