// The text of a document a user sent, for the prompt: plain text decoded here (UTF-8, or UTF-16
// with a byte order mark: bounded work on at most media.maxFileMb), PDF text read by a parser in
// a capped child process (src/parsers), never in the gateway's heap. The prompt gets at most
// `maxChars`; the whole file stays in the workspace for tools.

import type { Sniffed } from '../../core/sniff-type.ts';
import { type ParseLimits, runParser } from '../../parsers/index.ts';

/** What was read from a document. */
export interface ExtractedText {
  content: string;
  /** More text than `maxChars` was there. */
  truncated: boolean;
  pages?: number;
}

/** How documents are read (media.extract). */
export interface ExtractOptions {
  maxChars: number;
  limits: ParseLimits;
  maxParallel?: number;
  /** Test hook: the parser child's entry file (runParser's `parserFile`). */
  parserFile?: string;
  signal?: AbortSignal;
}

/**
 * Extracts the text of a text file or PDF; undefined for other types, `{ error }` (one line for the
 * user: why it could not be read) when reading failed or passed a cap.
 */
export async function extractText(
  bytes: Uint8Array,
  type: Sniffed,
  o: ExtractOptions,
): Promise<ExtractedText | { error: string } | undefined> {
  if (type.family === 'text') return cap(decodeText(bytes), o.maxChars);
  if (type.family !== 'pdf') return undefined;
  const r = await runParser('pdf-text', bytes, o.maxChars, o.limits, {
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.maxParallel ? { maxParallel: o.maxParallel } : {}),
    ...(o.parserFile ? { parserFile: o.parserFile } : {}),
  });
  if (!r.ok) return { error: r.failure === 'error' ? `it is not a readable PDF (${r.why})` : r.why };
  const v = r.value as Partial<ExtractedText>;
  if (typeof v?.content !== 'string') return { error: 'the reader returned nothing usable' };
  return {
    ...cap(v.content, o.maxChars),
    ...(v.truncated ? { truncated: true } : {}),
    ...(typeof v.pages === 'number' ? { pages: v.pages } : {}),
  };
}

function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

function cap(text: string, maxChars: number): ExtractedText {
  return text.length > maxChars
    ? { content: text.slice(0, maxChars), truncated: true }
    : { content: text, truncated: false };
}
