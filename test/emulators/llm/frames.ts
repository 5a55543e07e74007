// What a rendered reply is made of: bytes to write, pauses, and how the response ends; the SSE
// framing and the scripted steps every streaming wire writes alike.
import type { LlmEvent } from './script.ts';

/** One step of writing a response: data, a pause, or an ending other than the normal one. */
export type Frame = { data: string | Uint8Array } | { delay: number } | { control: 'end' | 'disconnect' | 'hang' };

/**
 * One server-sent event: an `event:` line when named, one `data:` line of JSON, a blank line
 * (`eol` is `\r\n` on Gemini's stream).
 */
export function sseFrame(data: unknown, event?: string, eol = '\n'): Frame {
  return { data: `${event ? `event: ${event}${eol}` : ''}data: ${JSON.stringify(data)}${eol}${eol}` };
}

/** A scripted step whose frames are the same on every wire but for the error event's body. */
export type ControlEvent = Extract<LlmEvent, { type: 'error' | 'truncate' | 'disconnect' | 'hang' | 'delay' }>;

/**
 * The frames of a control step: an error event (the wire's own `error` frame) that ends the
 * response, an early clean end, a dropped or hung connection, or a pause; `ends` when nothing follows.
 */
export function controlFrames(
  e: ControlEvent,
  error: (e: Extract<LlmEvent, { type: 'error' }>) => Frame,
): { frames: Frame[]; ends: boolean } {
  switch (e.type) {
    case 'error':
      return { frames: [error(e), { control: 'end' }], ends: true };
    case 'truncate':
      return { frames: [{ control: 'end' }], ends: true };
    case 'disconnect':
    case 'hang':
      return { frames: [{ control: e.type }], ends: true };
    case 'delay':
      return { frames: [{ delay: e.ms }], ends: false };
  }
}
