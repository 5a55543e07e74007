// Lists the lines longer than 120 characters in .ts/.js files (tracked, and new ones git does not
// ignore) and exits 1 if there are any.
// The formatter cannot break long string, template or regex literals, so `npm run lint` runs this
// after `biome check`. Lengths are in characters (code points), as the formatter counts them, not
// bytes. test/fixtures (byte-exact inputs) and tools/dist (build output) are not checked.
// Example: node scripts/check-line-length.js
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const SKIP = ['test/fixtures/', 'tools/dist/'];

const files = execFileSync(
  'git',
  ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.js'],
  { encoding: 'utf8' },
)
  .split('\0')
  .filter((f) => f && !SKIP.some((dir) => f.startsWith(dir)));
const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the working tree but still in the index
  }
  text.split('\n').forEach((line, i) => {
    const length = [...line.replace(/\r$/, '')].length;
    if (length > MAX) long.push(`${file}:${i + 1}: ${length} characters`);
  });
}
if (long.length) {
  process.stderr.write(`${long.join('\n')}\n${long.length} line(s) longer than ${MAX} characters\n`);
  process.exitCode = 1;
}
