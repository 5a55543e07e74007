// Questions on the terminal for `boxbot setup`, one answer per line. Lines are queued as they
// arrive, so answers piped in all at once (a script, a test) are not lost between questions;
// on a terminal, secret answers are not echoed.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from '../core/errors.ts';

/** Asks questions; `secret` answers are never echoed or printed. */
export interface Prompter {
  ask(question: string, opts?: { secret?: boolean; default?: string }): Promise<string>;
  close(): void;
}

/** A prompter over `input`/`output` (default: the process's stdin and stdout). */
export function createPrompter(
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Prompter {
  let muted = false;
  // readline echoes typed characters through this stream; while a secret is typed nothing passes.
  const echo = new Writable({
    write(chunk, _enc, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input, output: echo, terminal: input.isTTY === true });
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  rl.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w(undefined);
  });
  const nextLine = () =>
    lines.length
      ? Promise.resolve(lines.shift())
      : ended
        ? Promise.resolve(undefined)
        : new Promise<string | undefined>((r) => waiting.push(r));
  return {
    async ask(question, opts = {}) {
      const shown = opts.default ? `${question} [${opts.secret ? 'keep' : opts.default}]: ` : `${question}: `;
      output.write(shown);
      muted = opts.secret === true;
      const line = await nextLine();
      muted = false;
      if (opts.secret || input.isTTY !== true) output.write('\n');
      if (line === undefined)
        throw new UsageError(`the input ended at "${question}"; without questions: boxbot setup --yes (see --help)`);
      return line.trim() || opts.default || '';
    },
    close: () => rl.close(),
  };
}
