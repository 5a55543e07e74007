// Where the WASI preview1 command adapter comes from: the bytes `componentNew` links into a
// preview1 command module (e.g. a WAT or Rust tool) to make it a wasi:cli/run component.
// The adapter is a build artefact of jco, which is a build-time tool only; `npm run
// build:tools` copies it next to the bundled tools (tools/dist/adapters/), so a production
// install (the packed tarball, or `--omit=dev`) has it without jco. A source checkout whose
// tools are not built yet falls back to jco's own copy.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { packagePath } from '../core/package-paths.ts';

/** The file name jco ships, kept the same here. */
export const PREVIEW1_COMMAND_ADAPTER = 'wasi_snapshot_preview1.command.wasm';

/** The copy made by build:tools. */
export const SHIPPED_ADAPTER_PATH = packagePath('tools', 'dist', 'adapters', PREVIEW1_COMMAND_ADAPTER);

/** The adapter's bytes; the error says how to get it when neither copy is there. */
export async function readPreview1CommandAdapter(shipped = SHIPPED_ADAPTER_PATH): Promise<Uint8Array> {
  if (existsSync(shipped)) return readFile(shipped);
  let jco: { preview1AdapterCommandPath(): URL };
  try {
    // A variable specifier: jco is a devDependency, absent from a production install.
    const name = '@bytecodealliance/jco';
    jco = (await import(name)) as typeof jco;
  } catch {
    throw new Error(`the WASI preview1 adapter is missing (${shipped}); run npm run build:tools`);
  }
  return readFile(jco.preview1AdapterCommandPath());
}
