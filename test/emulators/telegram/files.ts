// Files on the emulated Bot API: what a user sends (photo in several sizes, document, voice,
// audio, video note), `getFile` (20 MB limit of the public API) and the download URL
// `/file/bot<token>/<file_path>`, with every download recorded (path and status).
import type { ServerResponse } from 'node:http';
import { BotApiError } from './methods.ts';
import type { TelegramEmulator } from './server.ts';
import type { ChatInfo, UserInfo } from './updates.ts';

/** A file the emulator serves. */
export interface EmulatedFile {
  fileId: string;
  uniqueId: string;
  path: string;
  bytes: Uint8Array;
}

/** What a user sends: the message field and the bytes. */
export interface UserFileOptions {
  chat: ChatInfo;
  from: UserInfo;
  kind: 'photo' | 'document' | 'voice' | 'audio' | 'video_note';
  bytes: Uint8Array;
  fileName?: string;
  mimeType?: string;
  caption?: string;
}

/** The public Bot API's download limit. */
export const GET_FILE_LIMIT = 20 * 1024 * 1024;

/** The emulator's file store. */
export class EmulatedFiles {
  readonly byId = new Map<string, EmulatedFile>();
  /** Every download request: the path asked for and the HTTP status answered. */
  readonly downloads: { path: string; status: number }[] = [];
  /** The next this many downloads are answered 502 (a failing file server). */
  failDownloads = 0;
  private next = 1;

  add(bytes: Uint8Array, folder: string, ext: string): EmulatedFile {
    const n = this.next++;
    const file = { fileId: `FILE-${n}-${folder}`, uniqueId: `U${n}`, path: `${folder}/file_${n}.${ext}`, bytes };
    this.byId.set(file.fileId, file);
    return file;
  }

  /** getFile: the file's path (or the API's refusals). */
  getFile(fileId: unknown): unknown {
    const f = typeof fileId === 'string' ? this.byId.get(fileId) : undefined;
    if (!f) throw new BotApiError(400, 'Bad Request: invalid file_id');
    if (f.bytes.length > GET_FILE_LIMIT) throw new BotApiError(400, 'Bad Request: file is too big');
    return { file_id: f.fileId, file_unique_id: f.uniqueId, file_size: f.bytes.length, file_path: f.path };
  }

  /** GET /file/bot<token>/<path>: the bytes, or 404 (a wrong token or path is "Not Found" there). */
  serve(res: ServerResponse, tokenOk: boolean, path: string): void {
    if (this.failDownloads > 0) {
      this.failDownloads--;
      this.downloads.push({ path, status: 502 });
      res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
      return;
    }
    const f = tokenOk ? [...this.byId.values()].find((x) => x.path === path) : undefined;
    this.downloads.push({ path, status: f ? 200 : 404 });
    if (!f) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"ok":false,"error_code":404,"description":"Not Found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.bytes.length });
    res.end(f.bytes);
  }
}

/** A user sends a file (with an optional caption); queues the update and returns it. */
export function userFileMessage(emu: TelegramEmulator, o: UserFileOptions): Record<string, unknown> {
  const message = emu.storeMessage(o.chat, o.from, { text: o.caption ?? '', entities: [] });
  delete message.text;
  if (o.caption) message.caption = o.caption;
  const size = o.bytes.length;
  const meta = { ...(o.mimeType ? { mime_type: o.mimeType } : {}), file_size: size };
  const file = (folder: string, ext: string) => {
    const f = emu.files.add(o.bytes, folder, ext);
    return { file_id: f.fileId, file_unique_id: f.uniqueId };
  };
  switch (o.kind) {
    case 'photo': {
      // Telegram sends the photo in ascending sizes; only the last is the original.
      const thumb = file('photos', 'jpg');
      message.photo = [
        { ...thumb, width: 90, height: 90, file_size: size },
        { ...file('photos', 'jpg'), width: 1280, height: 960, file_size: size },
      ];
      break;
    }
    case 'document':
      message.document = { ...file('documents', 'bin'), ...(o.fileName ? { file_name: o.fileName } : {}), ...meta };
      break;
    case 'voice':
      message.voice = { ...file('voice', 'oga'), duration: 2, mime_type: o.mimeType ?? 'audio/ogg', file_size: size };
      break;
    case 'audio':
      message.audio = {
        ...file('music', 'mp3'),
        duration: 2,
        ...(o.fileName ? { file_name: o.fileName } : {}),
        ...meta,
      };
      break;
    case 'video_note':
      message.video_note = { ...file('video_notes', 'mp4'), length: 240, duration: 2, file_size: size };
      break;
  }
  const update = { message };
  emu.pushUpdate(update);
  return update;
}
