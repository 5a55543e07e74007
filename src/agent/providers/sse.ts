// A server-sent events reader for providers spoken over plain fetch: yields each event's `data`, with a cap on
// how long one event may grow so a hostile or broken server cannot fill the heap with one endless line.
import { ProviderError } from './errors.ts';

/** The longest single event accepted (a whole tool call's arguments arrive in one event at most). */
export const MAX_SSE_EVENT_BYTES = 4 * 1024 * 1024;

/** The `data` of each event in `body`, in order (multi-line data joined with `\n`; comments and ids ignored). */
export async function* readSse(
  provider: string,
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  maxEventBytes = MAX_SSE_EVENT_BYTES,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const data = dataOf(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (data !== undefined) yield data;
        end = buffer.indexOf('\n\n');
      }
      if (buffer.length > maxEventBytes) {
        throw new ProviderError(provider, 'stream', `malformed stream data: an event over ${maxEventBytes} bytes`);
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}

function dataOf(event: string): string | undefined {
  const lines = event.split('\n').filter((l) => l.startsWith('data:'));
  if (lines.length === 0) return undefined;
  return lines.map((l) => l.slice(l[5] === ' ' ? 6 : 5)).join('\n');
}
