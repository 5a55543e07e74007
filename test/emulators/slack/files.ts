// Files on the emulated Slack: a user's upload is kept and served at `url_private(_download)`
// (`/files-pri/<team>-<file id>/download/<name>`) only with the bot token as a Bearer header;
// without it Slack answers 200 with its HTML sign-in page, and so does this. Every download is
// recorded with whether the token came along.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One upload. */
export interface SlackFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  /** `slack_audio` for a recorded audio clip. */
  subtype?: string;
}

/** The emulator's file store. */
export class SlackFiles {
  private readonly byPath = new Map<string, SlackFile>();
  readonly downloads: { path: string; authorized: boolean }[] = [];
  private next = 1;

  constructor(
    private readonly origin: () => string,
    private readonly teamId: string,
    private readonly botToken: string,
  ) {}

  /** Stores an upload; returns the file object a `message` event's `files` carries. */
  add(f: Omit<SlackFile, 'id'>): Record<string, unknown> {
    const id = `F0EMU${String(this.next++).padStart(5, '0')}`;
    const path = `/files-pri/${this.teamId}-${id}/download/${encodeURIComponent(f.name)}`;
    this.byPath.set(path, { ...f, id });
    const url = `${this.origin()}${path}`;
    return {
      id,
      created: Math.floor(Date.now() / 1000),
      name: f.name,
      title: f.name,
      mimetype: f.mimetype,
      filetype: f.name.split('.').pop() ?? 'binary',
      ...(f.subtype ? { subtype: f.subtype } : {}),
      size: f.bytes.length,
      mode: 'hosted',
      is_external: false,
      url_private: url,
      url_private_download: url,
    };
  }

  /** Whether `path` is a file download this store answers. */
  handles(path: string): boolean {
    return path.startsWith('/files-pri/');
  }

  /** Answers a GET of a file URL. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const authorized = req.headers.authorization === `Bearer ${this.botToken}`;
    this.downloads.push({ path, authorized });
    const f = this.byPath.get(path);
    if (!authorized) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Sign in to Slack</body></html>');
      return;
    }
    if (!f) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('file_not_found');
      return;
    }
    res.writeHead(200, { 'content-type': f.mimetype, 'content-length': f.bytes.length });
    res.end(f.bytes);
  }
}
