// The parser child's entry: one process per input, started by runParser with an empty
// environment and V8's heap capped. It reads the input's bytes from stdin, runs the parser named
// in argv, writes one JSON line to stdout and exits. Once its code is loaded, and before it reads
// a byte, it says `ready` on fd 3: the host counts the memory and CPU time of the parse from there.
// It holds no secret (nothing is inherited), and whatever a hostile input does to the parser ends
// with this process, never the gateway's.
// Example: node parser-child.js pdf-text 20000 < report.pdf → {"ok":true,"value":{...}}
import { writeSync } from 'node:fs';
import { pdfText } from './pdf-text.ts';

/** Every parser the child runs: name → function of the bytes and the character cap. */
const PARSERS = {
  'pdf-text': pdfText,
} satisfies Record<string, (bytes: Uint8Array, maxChars: number) => Promise<unknown>>;

/** The names runParser accepts. */
export type ParserName = keyof typeof PARSERS;

async function main(): Promise<void> {
  const [name, max] = process.argv.slice(2);
  const parser = PARSERS[name as ParserName];
  const maxChars = Number(max);
  if (!parser || !Number.isSafeInteger(maxChars) || maxChars < 0) throw new Error(`usage: <parser> <maxChars>`);
  writeSync(3, 'ready\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  done({ ok: true, value: await parser(new Uint8Array(Buffer.concat(chunks)), maxChars) });
}

const done = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
main().catch((e: unknown) => done({ ok: false, error: (e instanceof Error ? e.message : String(e)).slice(0, 500) }));
