// wasi:http (outgoing client) for guests. A request is handed to the main thread's broker
// through the call's NetBridge; the guest polls or blocks for the answer. A denial is an
// `error-code` result, never a trap. Serving (incoming-handler) is not offered to tools.
import type { Binding, CallContext, NetOutcome } from './context.ts';
import { InputStream, OutputStream, Pollable } from './io.ts';

type Method = { tag: string; val?: string };
type Scheme = { tag: 'HTTP' | 'HTTPS' | 'other'; val?: string };
const FORBIDDEN = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
]);
const WAIT_SLICE_MS = 1000;

/** `fields` (headers and trailers). */
export class Fields {
  private list: [string, Uint8Array][] = [];
  immutable = false;

  /** Headers that came from the network: stored as received (lower-cased), then frozen. */
  static received(entries: [string, Uint8Array][]): Fields {
    const f = new Fields();
    f.list = entries.map(([k, v]) => [k.toLowerCase(), v]);
    f.immutable = true;
    return f;
  }

  static fromList(entries: [string, Uint8Array][]): Fields {
    const f = new Fields();
    for (const [k, v] of entries) f.append(k, v);
    return f;
  }

  private check(name: string): string {
    if (this.immutable) throw { tag: 'immutable' };
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw { tag: 'invalid-syntax' };
    const lower = name.toLowerCase();
    if (FORBIDDEN.has(lower)) throw { tag: 'forbidden' };
    return lower;
  }

  get(name: string): Uint8Array[] {
    const n = name.toLowerCase();
    return this.list.filter(([k]) => k === n).map(([, v]) => v);
  }
  has(name: string): boolean {
    return this.get(name).length > 0;
  }
  set(name: string, values: Uint8Array[]): void {
    const n = this.check(name);
    this.list = this.list.filter(([k]) => k !== n);
    for (const v of values) this.list.push([n, v]);
  }
  delete(name: string): void {
    const n = this.check(name);
    this.list = this.list.filter(([k]) => k !== n);
  }
  append(name: string, value: Uint8Array): void {
    this.list.push([this.check(name), value]);
  }
  entries(): [string, Uint8Array][] {
    return this.list.map(([k, v]) => [k, v]);
  }
  clone(): Fields {
    const f = new Fields();
    f.list = this.entries();
    return f;
  }
}

/** `outgoing-body`: collects what the guest writes. */
export class OutgoingBody {
  readonly chunks: Uint8Array[] = [];
  finished = false;
  private taken = false;
  write(): OutputStream {
    if (this.taken) throw undefined;
    this.taken = true;
    return new OutputStream({ write: (b) => void this.chunks.push(b.slice()) });
  }
  static finish(body: OutgoingBody): void {
    body.finished = true;
  }
}

/** `outgoing-request`. */
export class OutgoingRequest {
  private m: Method = { tag: 'get' };
  private path: string | undefined;
  private s: Scheme | undefined;
  private auth: string | undefined;
  private outBody: OutgoingBody | undefined;
  constructor(private readonly h: Fields) {
    h.immutable = true;
  }
  body(): OutgoingBody {
    if (this.outBody) throw undefined;
    this.outBody = new OutgoingBody();
    return this.outBody;
  }
  bodyBytes(): Uint8Array | null {
    if (!this.outBody) return null;
    return new Uint8Array(Buffer.concat(this.outBody.chunks));
  }
  method(): Method {
    return this.m;
  }
  setMethod(m: Method): void {
    this.m = m;
  }
  pathWithQuery(): string | undefined {
    return this.path;
  }
  setPathWithQuery(p: string | undefined): void {
    this.path = p;
  }
  scheme(): Scheme | undefined {
    return this.s;
  }
  setScheme(s: Scheme | undefined): void {
    this.s = s;
  }
  authority(): string | undefined {
    return this.auth;
  }
  setAuthority(a: string | undefined): void {
    this.auth = a;
  }
  headers(): Fields {
    return this.h;
  }
}

/** `request-options`: per-request timeouts (nanoseconds). */
export class RequestOptions {
  private t: Record<string, bigint | undefined> = {};
  connectTimeout(): bigint | undefined {
    return this.t.connect;
  }
  setConnectTimeout(d: bigint | undefined): void {
    this.t.connect = d;
  }
  firstByteTimeout(): bigint | undefined {
    return this.t.first;
  }
  setFirstByteTimeout(d: bigint | undefined): void {
    this.t.first = d;
  }
  betweenBytesTimeout(): bigint | undefined {
    return this.t.between;
  }
  setBetweenBytesTimeout(d: bigint | undefined): void {
    this.t.between = d;
  }
}

/** `future-trailers`: responses here never carry trailers. */
export class FutureTrailers {
  private done = false;
  subscribe(): Pollable {
    return new Pollable();
  }
  get() {
    if (this.done) return { tag: 'err', val: undefined };
    this.done = true;
    return { tag: 'ok', val: { tag: 'ok', val: undefined } };
  }
}

/** `incoming-body`: the buffered response body as a stream. */
export class IncomingBody {
  private taken = false;
  constructor(private readonly bytes: Uint8Array) {}
  stream(): InputStream {
    if (this.taken) throw undefined;
    this.taken = true;
    let at = 0;
    return new InputStream({
      read: (max) => {
        if (at >= this.bytes.length) return null;
        const chunk = this.bytes.slice(at, at + max);
        at += chunk.length;
        return chunk;
      },
    });
  }
  static finish(_body: IncomingBody): FutureTrailers {
    return new FutureTrailers();
  }
}

/** `incoming-response`. */
export class IncomingResponse {
  private consumed = false;
  constructor(
    private readonly code: number,
    private readonly h: Fields,
    private readonly body: Uint8Array,
  ) {}
  status(): number {
    return this.code;
  }
  headers(): Fields {
    return this.h;
  }
  consume(): IncomingBody {
    if (this.consumed) throw undefined;
    this.consumed = true;
    return new IncomingBody(this.body);
  }
}

/** `future-incoming-response`: resolves through the call's bridge. */
export class FutureIncomingResponse {
  private outcome: NetOutcome | undefined;
  private taken = false;
  constructor(
    private readonly ctx: CallContext,
    private readonly id: number | undefined,
    immediate?: NetOutcome,
  ) {
    this.outcome = immediate;
  }
  private ready(): boolean {
    if (this.outcome) return true;
    if (this.id !== undefined && this.ctx.net.poll(this.id)) this.outcome = this.ctx.net.take(this.id);
    return this.outcome !== undefined;
  }
  subscribe(): Pollable {
    return new Pollable(
      () => this.ready(),
      () => {
        if (this.id !== undefined) this.ctx.net.wait(this.id, WAIT_SLICE_MS);
      },
    );
  }
  get() {
    if (!this.ready()) return undefined;
    if (this.taken) return { tag: 'err', val: undefined };
    this.taken = true;
    const o = this.outcome!;
    if (!o.ok) return { tag: 'ok', val: { tag: 'err', val: o.error } };
    const headers = Fields.received(o.headers);
    return { tag: 'ok', val: { tag: 'ok', val: new IncomingResponse(o.status, headers, o.body) } };
  }
}

class Unsupported {
  constructor() {
    throw new Error('tools cannot serve HTTP: only outgoing requests are available');
  }
}

function methodName(m: Method): string {
  return m.tag === 'other' ? (m.val ?? 'GET') : m.tag.toUpperCase();
}

/** The `wasi:http/*` import objects. */
export function httpImports(binding: Binding): Record<string, Record<string, unknown>> {
  return {
    'wasi:http/types': {
      Fields,
      OutgoingRequest,
      OutgoingBody,
      RequestOptions,
      FutureIncomingResponse,
      IncomingResponse,
      IncomingBody,
      FutureTrailers,
      IncomingRequest: Unsupported,
      OutgoingResponse: Unsupported,
      ResponseOutparam: Unsupported,
      httpErrorCode: () => undefined,
    },
    'wasi:http/outgoing-handler': {
      handle(request: OutgoingRequest, options?: RequestOptions) {
        const ctx = binding.current;
        const scheme = request.scheme();
        const schemeName =
          !scheme || scheme.tag === 'HTTPS' ? 'https' : scheme.tag === 'HTTP' ? 'http' : (scheme.val ?? '');
        const authority = request.authority();
        if (!authority) throw { tag: 'HTTP-request-URI-invalid' };
        const url = `${schemeName}://${authority}${request.pathWithQuery() ?? '/'}`;
        const ms = (d: bigint | undefined) => (d === undefined ? undefined : Number(d / 1_000_000n));
        if (ctx.network.allow.length === 0) {
          return new FutureIncomingResponse(ctx, undefined, {
            ok: false,
            error: { tag: 'HTTP-request-denied' },
            message: 'no network access',
          });
        }
        const id = ctx.net.start({
          method: methodName(request.method()),
          url,
          headers: request.headers().entries(),
          body: request.bodyBytes(),
          connectTimeoutMs: ms(options?.connectTimeout()),
          firstByteTimeoutMs: ms(options?.firstByteTimeout()),
          betweenBytesTimeoutMs: ms(options?.betweenBytesTimeout()),
        });
        ctx.track({ close: () => ctx.net.cancel(id) });
        return new FutureIncomingResponse(ctx, id);
      },
    },
  };
}
