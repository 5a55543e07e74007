// The web chat adapter served over HTTP on loopback, as the gateway serves it, for the web chat's tests.
import type { TestContext } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { createWebAdapter, type WebAdapter } from '../../src/adapters/web/index.ts';
import { type HttpServer, startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';

/** An HTTP server on 127.0.0.1 (a free port) with `adapter`'s routes and nothing else. */
export function serveAdapter(adapter: Pick<WebAdapter, 'attach'>): Promise<HttpServer> {
  return startHttpServer({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(),
    routes: [],
    attach: [(app) => adapter.attach(app)],
  });
}

/**
 * A started web adapter (`opts`) behind its own server, both stopped after the test; `received` is what it
 * accepted, or `sink` takes each message (a sink that throws is a gateway refusing it).
 */
export async function serveWeb(
  t: TestContext,
  opts: Parameters<typeof createWebAdapter>[0] = {},
  sink?: (m: InboundMessage) => Promise<void>,
) {
  const adapter = createWebAdapter(opts);
  const received: InboundMessage[] = [];
  await adapter.start(sink ?? (async (m) => void received.push(m)));
  const server = await serveAdapter(adapter);
  t.after(async () => {
    await adapter.stop();
    await server.close();
  });
  return { adapter, server, received };
}
