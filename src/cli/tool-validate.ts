// `boxbot tool validate <file.wasm>`: registers one file the way the registry would and prints
// its ToolSpec (text: a summary and the input schema; json: the spec), or why it was refused
// (exit 1). A missing file or a bad flag is a usage error (exit 2).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { registerFile, ToolRefusedError, type ToolSpec } from '../agent/tools/index.ts';
import { UsageError } from '../core/errors.ts';
import { createSandbox } from '../sandbox/index.ts';

/** Flags of `tool validate`. */
export interface ToolValidateFlags {
  format: string;
}

function summary(spec: ToolSpec): string {
  const lines = [
    `${spec.name} ${spec.version}: ${spec.about}`,
    `  level:    ${spec.permissionLevel}`,
    `  network:  ${spec.network.join(', ') || '(none)'}`,
    `  keywords: ${spec.keywords.join(', ') || '(none)'}`,
    ...(spec.commands.length ? [`  commands: ${spec.commands.map((c) => c.name).join(', ')}`] : []),
    `  imports:  ${spec.imports.join(', ') || '(none)'}`,
    `  file:     ${spec.file}`,
    `  sha256:   ${spec.sha256}`,
    ...spec.notes.map((n) => `  note:     ${n}`),
    '  input schema:',
    ...JSON.stringify(spec.inputSchema, null, 2)
      .split('\n')
      .map((l) => `    ${l}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Validates `file`; returns the exit code. */
export async function toolValidate(
  file: string,
  flags: ToolValidateFlags,
  toolCacheDir: string,
  sandboxCacheDir: string,
): Promise<number> {
  if (flags.format !== 'text' && flags.format !== 'json')
    throw new UsageError(`--format ${flags.format}: expected text or json`);
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`${file}: no such file`);
  const sandbox = createSandbox({ cacheDir: sandboxCacheDir, workers: 1 });
  try {
    const { spec } = await registerFile(sandbox, path, toolCacheDir);
    process.stdout.write(flags.format === 'json' ? `${JSON.stringify(spec, null, 2)}\n` : summary(spec));
    return 0;
  } catch (e) {
    if (!(e instanceof ToolRefusedError)) throw e;
    if (flags.format === 'json')
      process.stdout.write(`${JSON.stringify({ file: path, refused: true, reason: e.message })}\n`);
    process.stderr.write(`boxbot: ${e.message}\n`);
    return 1;
  } finally {
    await sandbox.close();
  }
}
