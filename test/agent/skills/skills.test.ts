// Skills: loading bundled and extension SKILL.md files, reporting malformed ones without
// stopping, expanding arguments, and the `skill` tool inside a loop run.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import {
  createSkillTool,
  expandSkill,
  listSkills,
  loadSkills,
  staticSkillCatalog,
} from '../../../src/agent/skills/index.ts';
import { root, tempDir } from '../../helpers.ts';
import { builtin, noSandbox, noWasm, policy } from '../loop/helpers.ts';
import { callTools, reply, scriptedModel } from '../loop/scripted.ts';

const fixtures = join(root, 'test', 'fixtures', 'skills');

test('the bundled skills load without problems', async () => {
  const { skills, problems } = await listSkills({ dataDir: tempDir() });
  assert.deepEqual(problems, []);
  assert.deepEqual(
    skills.map((s) => s.name),
    ['code-review', 'daily-digest', 'summarize-conversation'],
  );
  assert.ok(skills.every((s) => s.source === 'bundled' && s.description.length > 10));
  const digest = skills.find((s) => s.name === 'daily-digest')!;
  assert.deepEqual(
    digest.args.map((a) => [a.name, a.required]),
    [
      ['history', true],
      ['period', false],
    ],
  );
});

test('malformed SKILL.md files are reported with the file and reason and skipped; the rest load', async () => {
  const { skills, problems } = await loadSkills([{ path: fixtures, source: 'extension' }]);
  assert.deepEqual(
    skills.map((s) => s.name),
    ['greet'],
  );
  const why = Object.fromEntries(problems.map((p) => [p.file.slice(fixtures.length + 1), p.reason]));
  assert.deepEqual(Object.keys(why).sort(), [
    'bad-arg/SKILL.md',
    'bad-yaml/SKILL.md',
    'no-description/SKILL.md',
    'no-front-matter/SKILL.md',
    'wrong-name/SKILL.md',
  ]);
  assert.match(why['no-front-matter/SKILL.md']!, /no YAML front matter/);
  assert.match(why['bad-yaml/SKILL.md']!, /front matter is not valid YAML/);
  assert.match(why['no-description/SKILL.md']!, /front matter field description: Required/);
  assert.match(why['wrong-name/SKILL.md']!, /name "another-name" does not match its directory "wrong-name"/);
  assert.match(why['bad-arg/SKILL.md']!, /front matter field args\.0\.name: expected a word/);
});

test('an extension skill overrides the bundled one of the same name', async () => {
  const dataDir = tempDir();
  const dir = join(dataDir, 'extensions', 'skills', 'code-review');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    '---\nname: code-review\ndescription: Our house review rules.\n---\nReview like we do.\n',
  );
  const { skills } = await listSkills({ dataDir });
  const review = skills.find((s) => s.name === 'code-review')!;
  assert.equal(review.source, 'extension');
  assert.equal(review.body, 'Review like we do.');
  assert.equal(skills.length, 3);
});

test('expansion fills $ARGUMENTS and {{arg}}, leaves undeclared placeholders, and checks required args', async () => {
  const { skills } = await loadSkills([{ path: fixtures, source: 'extension' }]);
  const greet = skills[0]!;
  const r = expandSkill(greet, { arguments: 'say hi to Ada', args: { who: 'Ada', tone: 'warm' } });
  assert.deepEqual(r, {
    ok: true,
    text: 'Greet Ada in a warm tone. Raw request: say hi to Ada\nLeave {{unknown}} alone.',
  });
  const optionalMissing = expandSkill(greet, { args: { who: 'Bob {{tone}}' } });
  assert.deepEqual(optionalMissing, {
    ok: true,
    text: 'Greet Bob {{tone}} in a  tone. Raw request: Bob {{tone}}\nLeave {{unknown}} alone.',
  });
  assert.deepEqual(expandSkill(greet, { arguments: 'hello' }), {
    ok: false,
    error: 'skill greet needs who (the person to greet); pass them in args',
  });
});

test('the skill tool returns the expanded body to the model, noting tools not available here', async (t) => {
  const { skills } = await loadSkills([{ path: fixtures, source: 'extension' }]);
  const catalog = staticSkillCatalog(skills);
  const read = builtin('read', 'ReadOnly');
  let tools = createToolSet({ wasm: noWasm, builtins: [read], policy: policy('read-only'), sandbox: noSandbox });
  const skill = createSkillTool(catalog, () => tools.permittedNames());
  tools = createToolSet({ wasm: noWasm, builtins: [read, skill], policy: policy('read-only'), sandbox: noSandbox });
  const provider = scriptedModel(t, [
    callTools([
      ['skill', { name: 'greet', args: { who: 'Ada' } }],
      ['skill', { name: 'greet' }],
      ['skill', { name: 'nope' }],
    ]),
    reply('Hello Ada!'),
  ]);
  const r = await runLoop({
    provider,
    model: 'm',
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'greet Ada' }] }],
    tools,
    meter: createCostMeter(() => 0),
  });
  assert.equal(r.outcome, 'final');
  const results = provider.requests[1]!.messages.at(-1)!.content.map((p) =>
    p.type === 'tool-result' ? [p.isError, p.content] : [],
  );
  assert.deepEqual(results[0], [
    false,
    '# Skill: greet\n\nGreet Ada in a  tone. Raw request: Ada\nLeave {{unknown}} alone.\n\n(This skill uses the ' +
      'tools read, web_fetch; not available in this conversation: web_fetch, so do without them.)',
  ]);
  assert.deepEqual(results[1], [true, 'skill greet needs who (the person to greet); pass them in args']);
  assert.deepEqual(results[2], [true, 'invalid input for skill: name: expected one of greet, got the string "nope"']);
});

test('skill listing copes with a missing extensions directory and a copied bundle', async () => {
  const bundled = tempDir();
  cpSync(join(root, 'skills'), bundled, { recursive: true });
  const { skills, problems } = await listSkills({ dataDir: join(tempDir(), 'absent'), bundledDir: bundled });
  assert.equal(skills.length, 3);
  assert.deepEqual(problems, []);
});

test('a SKILL.md that is a symlink out, a FIFO or a symlinked folder is reported and never read', async () => {
  const dataDir = tempDir();
  const skillsDir = join(dataDir, 'extensions', 'skills');
  const outside = tempDir('boxbot-outside-');
  const stolen = '---\nname: leak\ndescription: sk-ant-stolen\n---\nsk-ant-stolen\n';
  writeFileSync(join(outside, 'SKILL.md'), stolen.replace('name: leak', 'name: linked'));
  mkdirSync(join(skillsDir, 'leak'), { recursive: true });
  writeFileSync(join(outside, 'secret.md'), stolen);
  symlinkSync(join(outside, 'secret.md'), join(skillsDir, 'leak', 'SKILL.md'));
  mkdirSync(join(skillsDir, 'env'));
  symlinkSync('/proc/self/environ', join(skillsDir, 'env', 'SKILL.md'));
  mkdirSync(join(skillsDir, 'fifo'));
  execFileSync('mkfifo', [join(skillsDir, 'fifo', 'SKILL.md')]);
  // The folder itself is a real one whose SKILL.md leads through a symlinked directory.
  mkdirSync(join(skillsDir, 'linked'));
  symlinkSync(outside, join(skillsDir, 'linked', 'out'));
  symlinkSync('out/SKILL.md', join(skillsDir, 'linked', 'SKILL.md'));
  const { skills, problems } = await loadSkills([{ path: skillsDir, source: 'extension' }]);
  assert.deepEqual(skills, []);
  const why = Object.fromEntries(problems.map((p) => [p.file.slice(skillsDir.length + 1), p.reason]));
  assert.match(why['leak/SKILL.md']!, /outside the folder/);
  assert.match(why['env/SKILL.md']!, /outside the folder/);
  assert.match(why['fifo/SKILL.md']!, /not a regular file \(a FIFO\)/);
  assert.match(why['linked/SKILL.md']!, /outside the folder/);
});
