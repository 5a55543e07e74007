// ToolSearch: a built-in tool the model calls to find tools by name, keyword or description,
// so a large registry need not be sent in full each turn. Matches come back with their input
// schema, ready to call.
import type { BuiltinTool } from './builtin.ts';
import type { PermissionLevel } from './grants.ts';
import type { JsonSchema } from './schema.ts';

/** What the search needs to know of a tool. */
export interface SearchableTool {
  name: string;
  about: string;
  longAbout?: string;
  keywords?: string[];
  permissionLevel: PermissionLevel;
  inputSchema: JsonSchema | Record<string, unknown>;
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9\u00c0-\uffff]+/)
    .filter((w) => w.length > 1);

/** Scores tools against a query; best first, zero scores dropped. */
export function searchTools(tools: SearchableTool[], query: string, limit = 5): SearchableTool[] {
  const q = query.trim().toLowerCase();
  const terms = words(q);
  const scored = tools.map((t) => {
    const name = t.name.toLowerCase();
    let score = name === q ? 100 : 0;
    const about = t.about.toLowerCase();
    const long = (t.longAbout ?? '').toLowerCase();
    const keywords = (t.keywords ?? []).map((k) => k.toLowerCase());
    for (const w of terms) {
      if (name === w) score += 40;
      else if (name.includes(w)) score += 20;
      if (keywords.includes(w)) score += 15;
      else if (keywords.some((k) => k.includes(w))) score += 6;
      if (words(about).includes(w)) score += 8;
      else if (about.includes(w)) score += 4;
      if (long.includes(w)) score += 2;
    }
    return { t, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name))
    .slice(0, limit)
    .map((s) => s.t);
}

/** The ToolSearch tool over the tools `visible()` returns (already permission-filtered). */
export function createToolSearch(visible: () => SearchableTool[], onFound?: (names: string[]) => void): BuiltinTool {
  return {
    name: 'ToolSearch',
    description:
      'Find tools by name, keyword or description. Returns matching tools with their input schemas; found tools ' +
      'become callable. Use it when no listed tool fits the task.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words describing the tool you need, or a tool name' },
        limit: { type: 'integer', description: 'Most results to return', default: 5 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    permissionLevel: 'None',
    async run(input) {
      const query = typeof input.query === 'string' ? input.query : '';
      if (!query.trim()) return { content: 'query: expected a non-empty string', isError: true };
      const limit = typeof input.limit === 'number' && input.limit > 0 ? Math.min(20, Math.floor(input.limit)) : 5;
      const found = searchTools(visible(), query, limit);
      if (!found.length) return { content: `no tool matches ${JSON.stringify(query)}`, isError: false };
      onFound?.(found.map((t) => t.name));
      return {
        content: JSON.stringify(
          found.map((t) => ({
            name: t.name,
            description: t.about,
            permissionLevel: t.permissionLevel,
            inputSchema: t.inputSchema,
          })),
          null,
          1,
        ),
        isError: false,
      };
    },
  };
}
