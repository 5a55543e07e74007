// Files in the web chat: uploads (capped per file and per message, and by each browser's quota),
// downloads by the session's owner only (an attachment, never rendered, but a raster image's
// inline preview), and the check of the files a message names.
import type { Express, Request, Response } from 'express';
import type { Attachment, AttachmentKind } from '../types.ts';
import type { FileRef } from './events.ts';
import { type WebFileMeta, type WebFiles, WebQuotaError } from './files.ts';
import type { HttpGuard } from './http-guard.ts';

/** What the file routes need from the adapter. */
export interface FileRoutes {
  guard: HttpGuard;
  files: WebFiles | undefined;
  maxUpload: number;
}

const kindOf = (mimeType: string): AttachmentKind =>
  mimeType.startsWith('image/')
    ? 'image'
    : mimeType.startsWith('audio/')
      ? 'audio'
      : mimeType.startsWith('video/')
        ? 'video'
        : 'document';
/** Image types the page previews inline (raster only: an SVG is a document that can run script). */
const INLINE_IMAGE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** A size in megabytes, as the user reads it. */
export const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
/** A stored file as the page links it. */
export const fileRef = (m: WebFileMeta): FileRef => ({ id: m.id, name: m.name, size: m.size, mimeType: m.mimeType });

/** Reads a request body up to `limit` bytes; undefined (after a 413 naming the limit) when it is larger. */
async function readCapped(req: Request, res: Response, limit: number): Promise<Buffer | undefined> {
  const refuse = () =>
    void res.status(413).json({ error: `File too large: the limit is ${mb(limit)} per file.`, limit });
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    refuse();
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      refuse();
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A message's file ids checked against this session's uploads and the cap, then described. */
export async function describeFiles(
  o: Pick<FileRoutes, 'files' | 'maxUpload'>,
  sessionId: string,
  attachments: Attachment[],
): Promise<{ ok: Attachment[]; refs: FileRef[] } | { error: string; status: number }> {
  if (!attachments.length) return { ok: [], refs: [] };
  if (!o.files) return { error: 'this web chat takes no files (no files folder is configured)', status: 400 };
  const ok: Attachment[] = [];
  const refs: FileRef[] = [];
  let total = 0;
  for (const a of attachments) {
    const fileId = a.id.slice(a.id.lastIndexOf(':') + 1);
    const meta = await o.files.meta(sessionId, fileId);
    if (meta?.origin !== 'upload') return { error: `no uploaded file ${fileId} in this chat`, status: 400 };
    total += meta.size;
    ok.push({ id: a.id, kind: kindOf(meta.mimeType), name: meta.name, mimeType: meta.mimeType, size: meta.size });
    refs.push(fileRef(meta));
  }
  if (total > o.maxUpload)
    return { error: `Files too large: the limit is ${mb(o.maxUpload)} per message.`, status: 413 };
  return { ok, refs };
}

/** Mounts the upload and download routes under `base`. */
export function attachFileRoutes(app: Express, base: string, o: FileRoutes): void {
  const { guard, files, maxUpload } = o;
  app.post(`${base}/chat/upload`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: true });
    if (!viewer) return;
    const id = guard.ownedSession(req, res, viewer);
    if (!id) return;
    if (!files) return void res.status(400).json({ error: 'this web chat takes no files' });
    const bytes = await readCapped(req, res, maxUpload);
    if (!bytes) return;
    const mimeType = String(req.headers['content-type'] ?? 'application/octet-stream')
      .split(';')[0]!
      .trim();
    try {
      const meta = await files.save(id, bytes, {
        name: String(req.query.name ?? 'file'),
        mimeType: /^[\w.+-]+\/[\w.+-]+$/.test(mimeType) ? mimeType : 'application/octet-stream',
        origin: 'upload',
      });
      res.status(201).json(fileRef(meta));
    } catch (e) {
      if (!(e instanceof WebQuotaError)) throw e;
      res.status(413).json({
        error:
          `Upload refused: your uploads here already hold ${mb(e.usedBytes)} of ${mb(e.quotaBytes)}. ` +
          'Uploads not sent with a message are deleted after a day.',
        quota: e.quotaBytes,
      });
    }
  });
  // Downloads need the owning cookie (SameSite=Strict: never sent from another site) but not the
  // page token, so a link keeps working across restarts. An attachment, never rendered, except
  // a raster image's inline preview.
  app.get(`${base}/chat/files/:id`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: false });
    if (!viewer) return;
    const id = guard.ownedSession(req, res, viewer);
    if (!id) return;
    const meta = files ? await files.meta(id, String(req.params.id)) : undefined;
    if (!files || !meta) return void res.status(404).json({ error: 'no such file in this chat' });
    // `inline=1` on a raster image (never SVG, which can carry script) is the page's preview of it.
    const inline = req.query.inline === '1' && INLINE_IMAGE.has(meta.mimeType);
    const disposition = inline ? 'inline' : 'attachment';
    res.set({
      'Content-Type': inline ? meta.mimeType : 'application/octet-stream',
      'Content-Disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(meta.name)}`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'no-store',
    });
    res.send(Buffer.from(await files.read(id, meta.id)));
  });
}
