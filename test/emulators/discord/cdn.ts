// The emulated attachment CDN: a user's uploaded file is served at
// `/attachments/<channel>/<id>/<filename>?ex=&is=&hm=` like cdn.discordapp.com's signed URLs
// (a URL without its signature is refused with 404, as Discord does), and every download is recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One stored upload. */
interface CdnFile {
  bytes: Uint8Array;
  contentType: string;
  signature: string;
}

/** The emulator's attachment store. */
export class EmulatedCdn {
  private readonly files = new Map<string, CdnFile>();
  /** Every download: the path and the HTTP status answered; whether an Authorization header came along. */
  readonly downloads: { path: string; status: number; authorization: boolean }[] = [];
  private next = 1;

  constructor(private readonly origin: () => string) {}

  /** Stores an upload and returns its signed URL. */
  add(channelId: string, attachmentId: string, filename: string, bytes: Uint8Array, contentType: string): string {
    const signature = `sig${this.next++}`;
    const path = `/attachments/${channelId}/${attachmentId}/${encodeURIComponent(filename)}`;
    this.files.set(path, { bytes, contentType, signature });
    return `${this.origin()}${path}?ex=67a1b2c3&is=67a06143&hm=${signature}`;
  }

  /** Answers a GET under /attachments/. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const f = this.files.get(url.pathname);
    const ok = f !== undefined && url.searchParams.get('hm') === f.signature;
    this.downloads.push({ path: url.pathname, status: ok ? 200 : 404, authorization: !!req.headers.authorization });
    if (!ok) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('This content is no longer available.');
      return;
    }
    res.writeHead(200, { 'content-type': f.contentType, 'content-length': f.bytes.length });
    res.end(f.bytes);
  }
}
