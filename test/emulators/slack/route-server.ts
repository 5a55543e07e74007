// Serves adapter routes (AdapterRoute) over a plain node:http server on 127.0.0.1 port 0, the
// way the gateway's server mounts them, so HTTP-mode adapters can be tested without the gateway.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterRoute } from '../../../src/adapters/index.ts';

/** A running route server. */
export interface RouteServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Starts a server answering `routes` (404 for anything else). */
export async function serveRoutes(routes: AdapterRoute[]): Promise<RouteServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = routes.find((r) => r.method === req.method && r.path === path);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      route.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) }).then(
        (out) => res.writeHead(out.status, out.headers).end(out.body ?? ''),
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
