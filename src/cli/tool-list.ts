// `boxbot tool list`: registers the bundled tools and the user's extension tools the way the
// gateway does and prints each tool's name, level, source and about, then every refused file
// with its reason, then every file whose tool name a later file took over.
// `--format json` prints `{tools: [...], refused: [{file, reason}], shadowed: [{name, file, source, by, bySource}]}`.
import { createToolRegistry, type RegisteredTool, toolCacheDir, toolDirs } from '../agent/tools/index.ts';
import { UsageError } from '../core/errors.ts';
import { createSandbox } from '../sandbox/index.ts';

/** Flags of `tool list`. */
export interface ToolListFlags {
  format: string;
  /** The bundled tools' directory (default: the package's tools/dist). */
  bundled?: string;
}

/** One listed tool, as `--format json` prints it. */
export interface ListedTool {
  name: string;
  version: string;
  permissionLevel: string;
  about: string;
  source: string;
  file: string;
  keywords: string[];
  network: string[];
}

const listed = (t: RegisteredTool): ListedTool => ({
  name: t.spec.name,
  version: t.spec.version,
  permissionLevel: t.spec.permissionLevel,
  about: t.spec.about,
  source: t.source,
  file: t.spec.file,
  keywords: t.spec.keywords,
  network: t.spec.network,
});

/** Renders rows as left-aligned columns. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Lists the tools; returns the exit code (0: listed, refused files included). */
export async function toolList(flags: ToolListFlags, dataDir: string, sandboxCacheDir: string): Promise<number> {
  if (flags.format !== 'text' && flags.format !== 'json')
    throw new UsageError(`--format ${flags.format}: expected text or json`);
  const sandbox = createSandbox({ cacheDir: sandboxCacheDir, workers: 1 });
  const registry = createToolRegistry({
    sandbox,
    dirs: toolDirs(dataDir, flags.bundled),
    cacheDir: toolCacheDir(dataDir),
    watch: false,
  });
  try {
    await registry.start();
    const tools = registry.list().map(listed);
    const refused = registry.problems().map((p) => ({ file: p.file, reason: p.message }));
    const shadowed = registry.shadowed();
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify({ tools, refused, shadowed }, null, 2)}\n`);
      return 0;
    }
    const out: string[] = [];
    if (tools.length) {
      out.push(
        table([
          ['NAME', 'LEVEL', 'SOURCE', 'ABOUT'],
          ...tools.map((t) => [t.name, t.permissionLevel, t.source, t.about]),
        ]),
      );
    } else {
      out.push('no tools registered');
    }
    if (refused.length) {
      out.push('', `refused (${refused.length}):`, ...refused.map((r) => `  ${r.reason}`));
    }
    if (shadowed.length) {
      out.push(
        '',
        `shadowed (${shadowed.length}):`,
        ...shadowed.map((s) => `  ${s.name}: ${s.file} (${s.source}) is replaced by ${s.by} (${s.bySource})`),
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    await registry.close();
    await sandbox.close();
  }
}
