// @imports wasi:http/types@0.2.12, wasi:http/outgoing-handler@0.2.12, wasi:cli/environment@0.2.12
// A network guest: GETs the URL in its first argument through wasi:http and prints one JSON
// line {ok, status, body} or {ok:false, error}. Denials must arrive as errors, not traps.
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingRequest } from 'wasi:http/types@0.2.12';
import { getArguments } from 'wasi:cli/environment@0.2.12';

export const run = {
  run() {
    const [, target] = getArguments();
    let out;
    try {
      const url = new URL(target);
      const req = new OutgoingRequest(new Fields());
      req.setScheme(url.protocol === 'https:' ? { tag: 'HTTPS' } : { tag: 'HTTP' });
      req.setAuthority(url.host);
      req.setPathWithQuery(url.pathname + url.search);
      const future = handle(req, undefined);
      let res;
      for (;;) {
        res = future.get();
        if (res !== undefined) break;
        future.subscribe().block();
      }
      if (res.tag !== 'ok') throw 'future already taken';
      if (res.val.tag === 'err') {
        out = { ok: false, error: res.val.val.tag };
      } else {
        const response = res.val.val;
        const stream = response.consume().stream();
        const parts = [];
        for (;;) {
          try {
            parts.push(stream.blockingRead(65536n));
          } catch (e) {
            break;
          }
        }
        const body = new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
        out = { ok: true, status: response.status(), body };
      }
    } catch (e) {
      out = { ok: false, error: String(e && e.payload ? JSON.stringify(e.payload) : e) };
    }
    console.log(JSON.stringify(out));
  },
};
