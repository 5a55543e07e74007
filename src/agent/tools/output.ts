// A sandbox result → what the model reads: the JSON convention `{error, content, metadata}`
// or plain text, decoded by detection, capped with a note saying how much was cut; a non-zero
// exit or a trap is an error result saying why, with stderr.
import type { SandboxResult } from '../../sandbox/index.ts';
import { decodeText } from './decode.ts';

/** What a tool call returns to the loop (and the model). */
export interface ToolResult {
  content: string;
  isError: boolean;
  metadata: Record<string, unknown>;
}

/** Default cap on the content handed to the model, in characters. */
export const DEFAULT_MAX_CONTENT_CHARS = 30_000;

/** Cuts `text` to `max` characters, saying how much was cut. */
export function capContent(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const cut = text.length - max;
  return {
    text:
      `${text.slice(0, max)}\n\n[output truncated: ${cut.toLocaleString('en-US')} ` +
      `of ${text.length.toLocaleString('en-US')} characters cut]`,
    cut,
  };
}

function parseConvention(
  text: string,
): { error: boolean; content: string; metadata: Record<string, unknown> } | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
  try {
    const v = JSON.parse(t) as Record<string, unknown>;
    if (typeof v.content !== 'string' || (v.error !== undefined && typeof v.error !== 'boolean')) return undefined;
    const metadata =
      v.metadata && typeof v.metadata === 'object' && !Array.isArray(v.metadata)
        ? (v.metadata as Record<string, unknown>)
        : {};
    return { error: v.error === true, content: v.content, metadata };
  } catch {
    return undefined;
  }
}

/** Maps one sandbox result. */
export function toolResultOf(r: SandboxResult, maxChars = DEFAULT_MAX_CONTENT_CHARS): ToolResult {
  const out = decodeText(r.stdout);
  const err = r.stderr.length ? decodeText(r.stderr).text.trim() : '';
  const meta: Record<string, unknown> = { exitCode: r.exitCode, durationMs: Math.round(r.durationMs) };
  if (out.encoding !== 'UTF-8') meta.encoding = out.encoding;
  const finish = (content: string, isError: boolean, extra: Record<string, unknown> = {}): ToolResult => {
    const capped = capContent(content, maxChars);
    return {
      content: capped.text,
      isError,
      metadata: { ...extra, ...meta, ...(capped.cut ? { truncatedChars: capped.cut } : {}) },
    };
  };
  if (r.trap) {
    const why = `the tool was stopped: ${r.trap.kind} limit (${r.trap.message})`;
    return finish([why, err && `stderr:\n${err}`].filter(Boolean).join('\n\n'), true, { trap: r.trap.kind });
  }
  const conv = parseConvention(out.text);
  if (conv) {
    const isError = conv.error || r.exitCode !== 0;
    const content = isError && !conv.error && err ? `${conv.content}\n\nstderr:\n${err}` : conv.content;
    return finish(content, isError, conv.metadata);
  }
  if (r.exitCode !== 0) {
    const parts = [
      `the tool exited with code ${r.exitCode}`,
      out.text.trim() && `output:\n${out.text.trim()}`,
      err && `stderr:\n${err}`,
    ];
    return finish(parts.filter(Boolean).join('\n\n'), true);
  }
  return finish(out.text, false);
}
