// An emulator of the three web search APIs web_search speaks, on 127.0.0.1: SearXNG
// (`GET /search?q=&format=json`, no key), Brave Search (`GET /res/v1/web/search?q=&count=` with
// `X-Subscription-Token`) and Tavily (`POST /search` with a JSON body and `Authorization: Bearer`).
// Each answers in its own result shape; a wrong key gets the service's 401/403. Requests are recorded.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One result as every service knows it. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** A request the emulator received. */
export interface SearchRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running emulator. */
export interface SearchEmulator {
  url: string;
  requests: SearchRequest[];
  close(): Promise<void>;
}

/** Starts the emulator answering `hits` for any query; `key` is the Brave/Tavily key it accepts. */
export async function startSearchEmulator(hits: SearchHit[], key: string): Promise<SearchEmulator> {
  const requests: SearchRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: req.method ?? '',
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: req.headers,
        body,
      });
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method === 'GET' && u.pathname === '/search') {
        if (u.searchParams.get('format') !== 'json') return json(403, { error: 'format not allowed' });
        const q = u.searchParams.get('q') ?? '';
        return json(200, {
          query: q,
          number_of_results: hits.length,
          results: hits.map((h) => ({ url: h.url, title: h.title, content: h.snippet, engine: 'emulator' })),
        });
      }
      if (req.method === 'GET' && u.pathname === '/res/v1/web/search') {
        if (req.headers['x-subscription-token'] !== key)
          return json(401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', status: 401 } });
        const count = Number(u.searchParams.get('count') ?? 20);
        return json(200, {
          type: 'search',
          query: { original: u.searchParams.get('q') },
          web: {
            type: 'search',
            results: hits.slice(0, count).map((h) => ({ title: h.title, url: h.url, description: h.snippet })),
          },
        });
      }
      if (req.method === 'POST' && u.pathname === '/search') {
        if (req.headers.authorization !== `Bearer ${key}`) return json(401, { detail: { error: 'Unauthorized' } });
        let parsed: { query?: string; max_results?: number };
        try {
          parsed = JSON.parse(body);
        } catch {
          return json(400, { detail: { error: 'invalid JSON' } });
        }
        return json(200, {
          query: parsed.query,
          results: hits
            .slice(0, parsed.max_results ?? 5)
            .map((h) => ({ title: h.title, url: h.url, content: h.snippet, score: 0.9 })),
          response_time: 0.1,
        });
      }
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
