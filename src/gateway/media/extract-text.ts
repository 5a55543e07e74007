// The text of a document a user sent, for the prompt: plain text decoded (UTF-8, or UTF-16 with a
// byte order mark), PDF text through unpdf (pdf.js's serverless build: no native modules, about
// 2 MB installed, loaded on first use so a gateway that never sees a PDF never loads it).
// The prompt gets at most `maxChars`; the whole file stays in the workspace for tools.
import { errorMessage } from '../../errors.ts';
import type { Sniffed } from '../../sniff-type.ts';

/** What was read from a document. */
export interface ExtractedText {
  content: string;
  /** More text than `maxChars` was there. */
  truncated: boolean;
  pages?: number;
}

/** Extracts the text of a text file or PDF; undefined for other types, `{ error }` when reading failed. */
export async function extractText(
  bytes: Uint8Array,
  type: Sniffed,
  maxChars: number,
): Promise<ExtractedText | { error: string } | undefined> {
  if (type.family === 'text') return cap(decodeText(bytes), maxChars);
  if (type.family !== 'pdf') return undefined;
  try {
    const { extractText: pdfText, getDocumentProxy } = await import('unpdf');
    // pdf.js takes ownership of (and may detach) the buffer it is given: hand it a copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    try {
      const { totalPages, text } = await pdfText(pdf, { mergePages: true });
      return { ...cap(text.trim(), maxChars), pages: totalPages };
    } finally {
      await pdf.destroy().catch(() => undefined);
    }
  } catch (e) {
    return { error: `the PDF could not be read (${errorMessage(e)})` };
  }
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
