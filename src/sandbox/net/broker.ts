// The main-thread side of guest networking: checks a request against the call's grant,
// resolves the name once, refuses blocked addresses, and connects to exactly the address it
// checked (no second lookup, so DNS rebinding cannot slip past). Redirects are returned, not
// followed; responses are size- and time-capped. Every failure is a wasi:http error code.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { errorMessage } from '../../core/errors.ts';
import type { NetOutcome, NetRequest } from '../host/context.ts';
import type { NetworkGrant } from '../types.ts';
import { matchesAllowed, parseHostPatterns } from './host-pattern.ts';
import { isBlocked, parseBlockList } from './ip-block.ts';

/** Broker settings. */
export interface NetBrokerOptions {
  /** Name resolution (default: the system resolver). */
  resolve?: (host: string) => Promise<string[]>;
  maxResponseBytes?: number;
  timeoutMs?: number;
}

/** Response bytes one call may receive in all, and how many it has (the broker adds to it). */
export interface ResponseBudget {
  received: number;
  readonly maxResponseBytes: number;
}

/** Executes guests' HTTP requests under their grants. */
export interface NetBroker {
  execute(req: NetRequest, grant: NetworkGrant, signal: AbortSignal, budget?: ResponseBudget): Promise<NetOutcome>;
  close?(): void;
}

const fail = (tag: string, message: string, val?: unknown): NetOutcome => ({
  ok: false,
  error: val === undefined ? { tag } : { tag, val },
  message,
});

const systemResolve = async (host: string) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Creates a broker. */
export function createNetBroker(opts: NetBrokerOptions = {}): NetBroker {
  const resolve = opts.resolve ?? systemResolve;
  const maxBytes = opts.maxResponseBytes ?? 10 * 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 30_000;

  return {
    async execute(req, grant, signal, budget) {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return fail('HTTP-request-URI-invalid', `invalid URL ${req.url}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return fail('HTTP-request-denied', `${url.protocol} is not allowed, only http and https`);
      if (!matchesAllowed(url, parseHostPatterns(grant.allow))) {
        return fail('HTTP-request-denied', `${url.origin} is not in the allowed hosts`);
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: string[];
      if (isIP(host)) addresses = [host];
      else {
        try {
          addresses = await resolve(host);
        } catch (e) {
          return fail('DNS-error', `cannot resolve ${host}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`, {
            rcode: (e as NodeJS.ErrnoException).code,
            infoCode: undefined,
          });
        }
      }
      if (addresses.length === 0) return fail('destination-not-found', `${host} has no addresses`);
      const blocked = parseBlockList(grant.block);
      // Stricter than picking an allowed address: a name that points anywhere blocked is refused.
      const bad = addresses.find((a) => isBlocked(a, blocked));
      if (bad) return fail('destination-IP-prohibited', `${host} resolves to ${bad}, which is a blocked network`);
      const pinned = addresses[0]!;
      const family = isIP(pinned);
      const lookup: LookupFunction = (_h, options, cb) => {
        if ((options as { all?: boolean }).all)
          (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: pinned, family },
          ]);
        else cb(null, pinned, family);
      };
      return new Promise<NetOutcome>((done) => {
        const headers: Record<string, string[]> = {};
        for (const [k, v] of req.headers) (headers[k] ??= []).push(new TextDecoder().decode(v));
        const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
        const r = make(url, {
          method: req.method,
          headers,
          lookup,
          signal,
          timeout: timeoutMs,
          servername: isIP(host) ? undefined : host,
        });
        const timer = setTimeout(() => {
          r.destroy();
          done(fail('connection-timeout', `${url.origin} did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        const finish = (o: NetOutcome) => {
          clearTimeout(timer);
          done(o);
        };
        r.on('error', (e: NodeJS.ErrnoException) => {
          if (e.code === 'ECONNREFUSED') finish(fail('connection-refused', `${url.origin} refused the connection`));
          else if (e.name === 'AbortError') finish(fail('internal-error', 'request cancelled', 'cancelled'));
          else if (e.code?.startsWith('ERR_TLS') || e.code?.includes('CERT'))
            finish(fail('TLS-certificate-error', `${url.origin}: ${e.message}`));
          else finish(fail('internal-error', `${url.origin}: ${e.message}`, e.message));
        });
        r.on('response', (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) {
              res.destroy();
              finish(
                fail('HTTP-response-body-size', `response from ${url.origin} is over ${maxBytes} bytes`, BigInt(size)),
              );
              return;
            }
            if (budget) {
              budget.received += c.length;
              if (budget.received > budget.maxResponseBytes) {
                res.destroy();
                finish(
                  fail(
                    'HTTP-response-body-size',
                    `the call's responses are over ${budget.maxResponseBytes} bytes in all`,
                    BigInt(size),
                  ),
                );
                return;
              }
            }
            chunks.push(c);
          });
          res.on('error', (e) => finish(fail('HTTP-response-incomplete', e.message)));
          res.on('end', () => {
            const out: [string, Uint8Array][] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2)
              out.push([res.rawHeaders[i]!.toLowerCase(), new TextEncoder().encode(res.rawHeaders[i + 1]!)]);
            finish({
              ok: true,
              status: res.statusCode ?? 0,
              headers: out,
              body: new Uint8Array(Buffer.concat(chunks)),
            });
          });
        });
        r.end(req.body ?? undefined);
      });
    },
  };
}
