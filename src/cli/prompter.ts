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
  // readline echoes typed characters through this stream: only while a question that is not a
  // secret waits, so neither a secret nor anything typed ahead of its question is shown.
  let echoing = false;
  const echo = new Writable({
    write(chunk, _enc, done) {
      if (echoing) output.write(chunk);
      done();
    },
  });
  // No prompt of readline's own: the question is written before each line is read.
  const rl = createInterface({ input, output: echo, terminal: input.isTTY === true, prompt: '' });
  // Ctrl+C on a terminal (raw mode delivers it here, not as a signal): stop, nothing written yet.
  rl.on('SIGINT', () => {
    output.write('\nsetup stopped; nothing was written\n');
    process.exit(130);
  });
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
      echoing = opts.secret !== true;
      const line = await nextLine();
      echoing = false;
      if (opts.secret || input.isTTY !== true) output.write('\n');
      if (line === undefined)
        throw new UsageError(`the input ended at "${question}"; without questions: boxbot setup --yes (see --help)`);
      return line.trim() || opts.default || '';
    },
    close: () => rl.close(),
  };
}
