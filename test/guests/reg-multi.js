// @imports wasi:cli/environment@0.2.12, wasi:cli/stdout@0.2.12, wasi:cli/exit@0.2.12
// A registry test guest answering to several tool names (argv[0]), like bundled tools sharing
// one component: each name prints its own clap-style help and has one behaviour when called.
import { getArguments } from 'wasi:cli/environment@0.2.12';
import { exit } from 'wasi:cli/exit@0.2.12';
import { getStdout } from 'wasi:cli/stdout@0.2.12';

const OPTIONS = `Options:
  -f, --file-path <FILE_PATH>  Path to read
      --offset <NUMBER>        First line [default: 0]
      --mode <MODE>            How to read [possible values: encode, decode]
      --tag <TAG>...           Labels to attach
      --verbose                Say more
  -h, --help                   Print help
`;

const help = (name, about, decl, usage, extra = '') =>
  `${name} 1.0.0\n${about}\n\n${decl}\n\nUsage: ${name} ${usage}\n\n${extra}${OPTIONS}`;

const TOOLS = {
  // Prints its arguments, one per line: shows the argv the registry built.
  echo: {
    help: help(
      'echo',
      'Print the arguments it was given',
      'Keywords: echo,arguments\nPermissionLevel: ReadOnly',
      '[OPTIONS] --file-path <FILE_PATH> [PATTERN]...',
      'Arguments:\n  [PATTERN]...  Text to look for\n\n',
    ),
    run: (args) => write(args.map((a) => `${a}\n`).join('')),
  },
  // The JSON output convention.
  jsonout: {
    help: help(
      'jsonout',
      'Report results in the JSON convention',
      'Keywords: json\nPermissionLevel: ReadOnly',
      '[OPTIONS]',
    ),
    run: (args) =>
      write(
        `${JSON.stringify({ error: args.includes('--verbose'), content: 'found 2 files', metadata: { count: 2 } })}\n`,
      ),
  },
  // Latin-1 output (not UTF-8): café, crème, brûlée ...
  latin: {
    help: help('latin', 'Print French text in Latin-1', 'Keywords: latin1\nPermissionLevel: ReadOnly', '[OPTIONS]'),
    run: () => {
      const text = (
        'Le café était très chaud, la crème brûlée était délicieuse et le garçon a répondu à toutes nos ' +
        'questions. '
      ).repeat(4);
      write(Uint8Array.from([...text].map((c) => c.charCodeAt(0))));
    },
  },
  // Fails: some stdout, a reason on stderr, exit code 1.
  fail: {
    help: help('fail', 'Always fail', 'Keywords: fail\nPermissionLevel: ReadOnly', '[OPTIONS]'),
    run: () => {
      write('partial output\n');
      console.error('boom: the disk is on fire');
      exit({ tag: 'err' });
    },
  },
  // Never ends: stopped by the fuel or time limit.
  spin: {
    help: help('spin', 'Loop forever', 'Keywords: loop\nPermissionLevel: ReadOnly', '[OPTIONS]'),
    run: () => {
      for (let i = 0; ; i++) if (i < 0) break;
    },
  },
  // Declares no PermissionLevel: read as Execute.
  nolevel: {
    help: help('nolevel', 'A tool that forgot its level', 'Keywords: vague', '[OPTIONS]'),
    run: () => write('ok\n'),
  },
  // Help in GBK (test/fixtures/help/clap-gbk.txt as bytes): must register.
  zhtool: {
    help: hex(
      '7a68746f6f6c20302e312e300ab6c1c8a1cec4bcfeb2a2cdb3bcc6d6d0cec4d7d6b7fbb5c4cafdc1bf0a0a4b6579776f7264' +
        '733a20cec4bcfe2ccdb3bcc60a5065726d697373696f6e4c6576656c3a20526561644f6e6c790a0a55736167653a207a6874' +
        '6f6f6c205b4f5054494f4e535d202d2d66696c652d70617468203c46494c455f504154483e0a0a4f7074696f6e733a0a2020' +
        '2d662c202d2d66696c652d70617468203c46494c455f504154483e2020d2aab6c1c8a1b5c4cec4bcfec2b7beb60a20202020' +
        '20202d2d6c696d6974203c4e554d4245523e202020202020202020d7eeb6e0cdb3bcc6b5c4d0d0cafd205b64656661756c74' +
        '3a203130305d0a20202d682c202d2d68656c7020202020202020202020202020202020202020b4f2d3a1b0efd6fa0a',
    ),
    run: () => write('ok\n'),
  },
  // Declares a Network: entry that is not a host pattern: refused.
  badnet: {
    help: help('badnet', 'Declares a bad host', 'PermissionLevel: ReadOnly\nNetwork: api.github.com/v3', '[OPTIONS]'),
    run: () => write('ok\n'),
  },
  // Declares None, yet its component imports wasi:filesystem: refused.
  nofiles: {
    help: help('nofiles', 'Claims to touch no files', 'Keywords: pure\nPermissionLevel: None', '[OPTIONS]'),
    run: () => write('ok\n'),
  },
};

function hex(h) {
  return Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16));
}

function write(data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const out = getStdout();
  for (let at = 0; at < bytes.length; at += 4096) out.blockingWriteAndFlush(bytes.subarray(at, at + 4096));
}

export const run = {
  run() {
    const [name = '', ...args] = getArguments();
    const tool = TOOLS[name];
    if (!tool) {
      write(`Hello! I am ${name}, not a tool.\n`);
      return;
    }
    if (args[0] === '-h' || args[0] === '--help') write(tool.help);
    else tool.run(args);
  },
};
