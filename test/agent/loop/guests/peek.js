// @imports wasi:filesystem/preopens@0.2.12, wasi:cli/environment@0.2.12
// A tiny self-describing ReadOnly tool for the loop tests: `--file-path X` prints the file as
// the JSON output convention; `-h`/`--help` print clap-style help.

import { getArguments } from 'wasi:cli/environment@0.2.12';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

const HELP = `peek 0.1.0
Print a text file from the workspace

Keywords: file,read
PermissionLevel: ReadOnly

Usage: peek --file-path <FILE_PATH>

Options:
  -f, --file-path <FILE_PATH>  Path of the file to print
  -h, --help                   Print help
`;

export const run = {
  run() {
    const args = getArguments().slice(1);
    if (args.includes('-h') || args.includes('--help')) {
      console.log(HELP);
      return;
    }
    const at = args.indexOf('--file-path');
    const path = at >= 0 ? args[at + 1] : undefined;
    if (!path) {
      console.log(JSON.stringify({ error: true, content: 'missing --file-path' }));
      return;
    }
    try {
      const [[root]] = getDirectories();
      const file = root.openAt({}, path, {}, { read: true });
      const [data] = file.read(file.stat().size, 0n);
      console.log(JSON.stringify({ error: false, content: new TextDecoder().decode(data) }));
    } catch (e) {
      console.log(JSON.stringify({ error: true, content: `cannot read ${path}: ${e?.payload ? e.payload : e}` }));
    }
  },
};
