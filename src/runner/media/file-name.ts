// The name an inbound file is saved under in the workspace's `inbox/`: stable for one message
// (a resumed message saves the same file again, not a second copy), unique across messages, one
// plain path component, and with the extension of what the bytes are, not what the name claimed.
import { createHash } from 'node:crypto';
import type { Sniffed } from '../../core/sniff-type.ts';

/** Extensions kept for text files (code, data, notes); any other name on a text file becomes `.txt`. */
const TEXT_EXTS = new Set(
  [
    'txt md markdown csv tsv json jsonl yaml yml toml ini cfg conf log xml html htm css',
    'js mjs cjs ts tsx jsx py rb go rs java kt c h cpp hpp cs php sh bash zsh sql r lua pl swift scala',
    'tex rst srt vtt eml ics diff patch',
  ]
    .join(' ')
    .split(' '),
);

/** The part of a user-given name that can stand in a file name: letters, digits, `.`, `_`, `-`. */
function stemOf(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const stem = (dot > 0 ? base.slice(0, dot) : base)
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  return stem || 'file';
}

function extOf(name: string | undefined): string | undefined {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : undefined;
}

/**
 * `<date>-<time>-<tag>-<stem>[-<n>].<ext>`: the date and tag come from the message (so the name
 * is the same every time that message is prepared), `n` numbers the message's files.
 * Example: inboxName({ id: 'telegram:1:7', receivedAt }, 0, 1, 'IMG 1.PNG', png) → 20261124-093000-3f2a-IMG-1.png
 */
export function inboxName(
  msg: { id: string; receivedAt: string },
  index: number,
  count: number,
  declaredName: string | undefined,
  type: Sniffed,
): string {
  const when = new Date(msg.receivedAt);
  // Only four-digit years have the stamp's shape: past 9999 the ISO form is `+010000-...`.
  const year = when.getUTCFullYear();
  const stamp =
    year >= 0 && year <= 9999
      ? when.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
      : '00000000-000000';
  const tag = createHash('sha256').update(msg.id).digest('hex').slice(0, 4);
  const declaredExt = extOf(declaredName);
  const ext = type.family === 'text' && declaredExt && TEXT_EXTS.has(declaredExt) ? declaredExt : type.ext;
  const n = count > 1 ? `-${index + 1}` : '';
  return `${stamp}-${tag}-${stemOf(declaredName)}${n}.${ext}`;
}
