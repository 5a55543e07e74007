// PDF text through unpdf (pdf.js's serverless build: no native modules). Runs only inside the
// parser child (parser-child.ts), never in the gateway: a crafted PDF can make pdf.js build a
// string larger than V8 allows, which aborts the whole process. Pages are read one at a time and
// reading stops once `maxChars` are there, so a long document costs no more than its first pages.
import { getDocumentProxy } from 'unpdf';

/** What was read from a PDF. */
export interface PdfText {
  content: string;
  /** More text than `maxChars` was there (or more pages than were read). */
  truncated: boolean;
  pages: number;
}

/** The text of the PDF in `bytes`, whitespace collapsed, at most `maxChars` characters. */
export async function pdfText(bytes: Uint8Array, maxChars: number): Promise<PdfText> {
  const pdf = await getDocumentProxy(bytes);
  try {
    let content = '';
    let truncated = false;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const { items } = await page.getTextContent();
      page.cleanup();
      // Text items carry `str`; marked-content items (structure tags) carry none.
      const text = (items as { str?: string; hasEOL?: boolean }[])
        .map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : ''))
        .join('')
        .replace(/\s+/g, ' ')
        .trim();
      if (text) content = content ? `${content} ${text}` : text;
      if (content.length > maxChars) {
        truncated = true;
        break;
      }
    }
    return { content: content.slice(0, maxChars), truncated, pages: pdf.numPages };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
