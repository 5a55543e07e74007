// @imports wasi:filesystem/preopens@0.2.12, wasi:cli/environment@0.2.12
// Prints the file named by its first argument, read through the guest's `/` preopen.

import { getArguments } from 'wasi:cli/environment@0.2.12';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

export const run = {
  run() {
    const [, path] = getArguments();
    const [[root]] = getDirectories();
    const file = root.openAt({}, path, {}, { read: true });
    const [data] = file.read(file.stat().size, 0n);
    console.log(new TextDecoder().decode(data));
  },
};
