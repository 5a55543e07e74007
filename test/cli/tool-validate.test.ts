// `boxbot tool validate <file.wasm>` as a user runs it: the ToolSpec (text or JSON), or why the
// file is refused with exit 1; a missing file or bad flag is a usage error (exit 2).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { dropTool } from '../agent/tools/registry-helpers.ts';
import { boxbotArgv, root, shareCache, tempDir } from '../helpers.ts';

const dataDir = shareCache(tempDir('boxbot-data-'));
const config = join(dataDir, 'boxbot.config.json');
const dir = tempDir('boxbot-tools-');

/** Runs the CLI entry (src/cli/main.ts `main`) in a child process, as bin/boxbot.js does. */
function boxbot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, boxbotArgv([...args, '--config', config]), { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('boxbot tool validate', () => {
  let echo: string;
  before(() => {
    writeFileSync(config, JSON.stringify({ dataDir }));
    echo = dropTool(dir, 'reg-multi', 'echo');
  });

  it('prints a summary of the spec and its input schema', () => {
    const r = boxbot('tool', 'validate', echo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^echo 1\.0\.0: Print the arguments it was given$/m);
    assert.match(r.stdout, /^ {2}level: {4}ReadOnly$/m);
    assert.match(r.stdout, /^ {2}keywords: echo, arguments$/m);
    assert.match(r.stdout, /"file_path": \{\n\s+"description": "Path to read",\n\s+"type": "string"/);
  });

  it('prints the ToolSpec with --format json', () => {
    const r = boxbot('tool', 'validate', echo, '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    const spec = JSON.parse(r.stdout) as {
      name: string;
      permissionLevel: string;
      file: string;
      sha256: string;
      inputSchema: { required: string[] };
    };
    assert.equal(spec.name, 'echo');
    assert.equal(spec.permissionLevel, 'ReadOnly');
    assert.equal(spec.file, echo);
    assert.match(spec.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(spec.inputSchema.required, ['file_path']);
  });

  it('lists every import of the tool, including those imported only for their types', () => {
    // The Rust/clap fixture, wrapped by the preview1 adapter, imports wasi:clocks/wall-clock only
    // for the timestamps in wasi:filesystem's types.
    const r = boxbot('tool', 'validate', join(root, 'test', 'fixtures', 'rust-clap', 'rcat.wasm'));
    assert.equal(r.code, 0, r.stderr);
    const listed = /^ {2}imports: {2}(.*)$/m.exec(r.stdout)?.[1]?.split(', ');
    assert.ok(listed, r.stdout);
    for (const name of [
      'wasi:cli/environment',
      'wasi:cli/exit',
      'wasi:clocks/wall-clock',
      'wasi:filesystem/types',
      'wasi:filesystem/preopens',
      'wasi:io/streams',
    ]) {
      assert.ok(
        listed.some((i) => i === name || i.startsWith(`${name}@`)),
        `${name} in ${listed.join(', ')}`,
      );
    }
    const json = JSON.parse(
      boxbot('tool', 'validate', join(root, 'test', 'fixtures', 'rust-clap', 'rcat.wasm'), '--format', 'json').stdout,
    ) as { imports: string[] };
    assert.ok(
      json.imports.some((i) => i.startsWith('wasi:clocks/wall-clock@')),
      json.imports.join(', '),
    );
  });

  it('says why a file is refused, in one line, and exits 1', () => {
    const file = join(dir, 'broken.wasm');
    writeFileSync(file, 'not wasm at all');
    const r = boxbot('tool', 'validate', file);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^boxbot: \S*broken\.wasm refused: it is not a usable WASI tool: .*\n$/);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    const json = boxbot('tool', 'validate', file, '--format', 'json');
    assert.equal(json.code, 1);
    const out = JSON.parse(json.stdout) as { file: string; refused: boolean; reason: string };
    assert.deepEqual([out.file, out.refused], [file, true]);
    assert.match(out.reason, /broken\.wasm refused: it is not a usable WASI tool/);
  });

  const saysToolImportingTitle =
    'says that a tool importing wasi:http without a Network: line gets only the network the conversation allows';
  it(saysToolImportingTitle, () => {
    const sneaky = dropTool(dir, 'reg-net', 'sneaky');
    const r = boxbot('tool', 'validate', sneaky);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        '^ {2}note: {5}it imports wasi:http but prints no Network: line, ' +
          "so it may reach only the hosts the conversation's policy allows \\(network\\.allow, empty by default\\)$",
        'm',
      ),
    );
  });

  it('refuses a program that prints no help, quoting it', () => {
    const r = boxbot('tool', 'validate', dropTool(dir, 'reg-multi', 'greeter'));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /greeter\.wasm refused: `-h` and `--help`: the output is not help: .*"Hello! I am greeter, not a tool\."\)\n$/,
    );
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
  });

  it('answers a missing file or a bad flag with exit code 2', () => {
    const missing = boxbot('tool', 'validate', join(dir, 'nope.wasm'));
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, `boxbot: ${join(dir, 'nope.wasm')}: no such file\n`);
    const bad = boxbot('tool', 'validate', echo, '--format', 'yaml');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--format yaml: expected text or json/);
  });
});
