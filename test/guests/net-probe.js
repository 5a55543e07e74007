// @imports wasi:http/types@0.2.12, wasi:http/outgoing-handler@0.2.12, wasi:cli/environment@0.2.12
// A network guest: GETs each URL in its arguments through wasi:http, one after the other, and
// prints one JSON line per URL: {ok, status, body} or {ok:false, error}. Denials must arrive as
// errors, not traps. `--parallel URL...` starts every request before waiting for any;
// `--leave URL [THEN]` starts the request and exits without waiting for it (after fetching
// THEN, if given, so a server can hold THEN until the first request has arrived).

import { getArguments } from 'wasi:cli/environment@0.2.12';
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingRequest } from 'wasi:http/types@0.2.12';

function start(target) {
  const url = new URL(target);
  const req = new OutgoingRequest(new Fields());
  req.setScheme(url.protocol === 'https:' ? { tag: 'HTTPS' } : { tag: 'HTTP' });
  req.setAuthority(url.host);
  req.setPathWithQuery(url.pathname + url.search);
  return handle(req, undefined);
}

function finish(future) {
  let res;
  for (;;) {
    res = future.get();
    if (res !== undefined) break;
    future.subscribe().block();
  }
  if (res.tag !== 'ok') throw 'future already taken';
  if (res.val.tag === 'err') return { ok: false, error: res.val.val.tag };
  const response = res.val.val;
  const stream = response.consume().stream();
  const parts = [];
  let size = 0;
  for (;;) {
    try {
      const part = stream.blockingRead(65536n);
      parts.push(part);
      size += part.length;
    } catch (_e) {
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const body = new TextDecoder().decode(all);
  return { ok: true, status: response.status(), body };
}

function guarded(f) {
  try {
    return f();
  } catch (e) {
    return { ok: false, error: String(e?.payload ? JSON.stringify(e.payload) : e) };
  }
}

export const run = {
  run() {
    const [, ...args] = getArguments();
    if (args[0] === '--leave') {
      start(args[1]);
      if (args[2]) console.log(JSON.stringify(guarded(() => finish(start(args[2])))));
      console.log(JSON.stringify({ ok: true, left: args[1] }));
      return;
    }
    if (args[0] === '--parallel') {
      const futures = args.slice(1).map((u) => guarded(() => start(u)));
      for (const f of futures) console.log(JSON.stringify(f.ok === false ? f : guarded(() => finish(f))));
      return;
    }
    for (const u of args) console.log(JSON.stringify(guarded(() => finish(start(u)))));
  },
};
