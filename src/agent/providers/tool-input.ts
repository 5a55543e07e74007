// Tool-call arguments arrive as JSON text assembled from fragments; this is the one place they are parsed.

/**
 * Parses a tool call's JSON arguments. Text that is not valid JSON is returned as the raw string, so the
 * loop's schema check reports the problem to the model instead of the stream failing.
 */
export function parseToolInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}
