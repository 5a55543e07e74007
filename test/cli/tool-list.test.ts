// `boxbot tool list` as a user runs it: the bundled and extension tools with name, level,
// source and about, refused files with their reasons, files whose name another took over,
// text and JSON, usage errors exit 2.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { dropTool } from '../agent/tools/registry-helpers.ts';
import { boxbotArgv, root, shareCache, tempDir } from '../helpers.ts';

const dataDir = shareCache(tempDir('boxbot-data-'));
const config = join(dataDir, 'boxbot.config.json');
const bundled = tempDir('boxbot-bundled-');
const extensions = join(dataDir, 'extensions', 'tools');
const RCAT = join(root, 'test', 'fixtures', 'rust-clap', 'rcat.wasm');

/** Runs the CLI entry (src/cli/main.ts `main`) in a child process, as bin/boxbot.js does. */
function boxbot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, boxbotArgv([...args, '--config', config]), { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('boxbot tool list', () => {
  before(() => {
    writeFileSync(config, JSON.stringify({ dataDir }));
    mkdirSync(extensions, { recursive: true });
    // The user's my-cat.wasm says it is rcat: it takes the name over from the bundled rcat.wasm.
    copyFileSync(RCAT, join(bundled, 'rcat.wasm'));
    copyFileSync(RCAT, join(extensions, 'my-cat.wasm'));
    dropTool(bundled, 'reg-v1', 'hot');
    dropTool(extensions, 'reg-multi', 'echo');
    writeFileSync(join(extensions, 'junk.wasm'), 'not wasm at all');
    dropTool(extensions, 'reg-multi', 'nofiles');
  });

  const listsEachToolTitle =
    'lists each tool with name, level, source and about, then the refused files with reasons and the files whose ' +
    'name another took over';
  it(listsEachToolTitle, () => {
    const r = boxbot('tool', 'list', '--bundled', bundled);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^NAME\s+LEVEL\s+SOURCE\s+ABOUT$/);
    assert.match(lines[1]!, /^echo\s+ReadOnly\s+extension\s+Print the arguments it was given$/);
    assert.match(lines[2]!, /^hot\s+ReadOnly\s+bundled\s+Hot reload test tool, version 1$/);
    assert.match(lines[3]!, /^nofiles\s+None\s+extension\s+Claims to touch no files$/);
    assert.match(lines[4]!, /^rcat\s+ReadOnly\s+extension\s+Print lines of a file$/);
    assert.match(
      r.stdout,
      /^shadowed \(1\):\n {2}rcat: \S+\/rcat\.wasm \(bundled\) is replaced by \S+\/my-cat\.wasm \(extension\)$/m,
    );
    assert.match(r.stdout, /^refused \(1\):$/m);
    assert.match(r.stdout, /junk\.wasm refused: it is not a usable WASI tool/);
  });

  it('prints {tools, refused, shadowed} with --format json', () => {
    const r = boxbot('tool', 'list', '--bundled', bundled, '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      tools: { name: string; permissionLevel: string; source: string; about: string; file: string }[];
      refused: { file: string; reason: string }[];
      shadowed: unknown[];
    };
    assert.deepEqual(
      out.tools.map((t) => [t.name, t.permissionLevel, t.source]),
      [
        ['echo', 'ReadOnly', 'extension'],
        ['hot', 'ReadOnly', 'bundled'],
        ['nofiles', 'None', 'extension'],
        ['rcat', 'ReadOnly', 'extension'],
      ],
    );
    assert.deepEqual(out.shadowed, [
      {
        name: 'rcat',
        file: join(bundled, 'rcat.wasm'),
        source: 'bundled',
        by: join(extensions, 'my-cat.wasm'),
        bySource: 'extension',
      },
    ]);
    assert.equal(out.tools[1]!.file, join(bundled, 'hot.wasm'));
    assert.deepEqual(
      out.refused.map((p) => p.file),
      [join(dataDir, 'extensions', 'tools', 'junk.wasm')],
    );
    assert.ok(out.refused.every((p) => / refused: /.test(p.reason)));
  });

  it('answers a bad --format with one line and exit code 2', () => {
    const r = boxbot('tool', 'list', '--bundled', bundled, '--format', 'xml');
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'boxbot: --format xml: expected text or json\n');
  });
});
