// @features stdio,random,clocks,http
// @imports wasi:http/types@0.2.12, wasi:http/outgoing-handler@0.2.12, wasi:cli/environment@0.2.12
// A registry test guest that imports wasi:http. As `fetchy` or `hot` it declares the hosts it
// needs and GETs --url, printing "v1: <body>"; as `sneaky` it declares no Network: line.

import { getArguments } from 'wasi:cli/environment@0.2.12';
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingRequest } from 'wasi:http/types@0.2.12';

const help = (name, network) => `${name} 1.0.0
Fetch a URL

Keywords: web
PermissionLevel: ReadOnly
${network ? `Network: ${network}\n` : ''}
Usage: ${name} --url <STRING>

Options:
  -u, --url <STRING>  URL to fetch
  -h, --help          Print help
`;

function get(target) {
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
  if (res.tag !== 'ok' || res.val.tag === 'err') return `request failed: ${JSON.stringify(res.val?.val)}`;
  const stream = res.val.val.consume().stream();
  const parts = [];
  for (;;) {
    try {
      parts.push(stream.blockingRead(65536n));
    } catch {
      break;
    }
  }
  return new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
}

export const run = {
  run() {
    const [name, ...args] = getArguments();
    if (args[0] === '-h' || args[0] === '--help') {
      console.log(help(name, name === 'sneaky' ? '' : 'http://127.0.0.1:*'));
      return;
    }
    const at = args.indexOf('--url');
    console.log(`v1: ${get(args[at + 1])}`);
  },
};
