// Skills end to end: a public-format skill installed from a tarball and from a git server, used
// through the agent loop against the LLM emulator (the prompt lists only its name and line; the
// model loads it, reads a reference and runs its script in the sandbox); a hostile skill's scripts
// see nothing of the host; a skill changed after approval does not run; Python is refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import { resolveModel } from '../../../src/agent/providers/index.ts';
import { type AgentPolicy, runAgent } from '../../../src/agent/run-agent.ts';
import {
  createSkillRunTool,
  installSkill,
  loadSkills,
  PYTHON_REFUSED,
  type Skill,
  staticSkillCatalog,
} from '../../../src/agent/skills/index.ts';
import type { ApprovalQuestion, RegisteredTool } from '../../../src/agent/tools/index.ts';
import { createApprovalGate } from '../../../src/agent/tools/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { root, tempDir } from '../../helpers.ts';
import { policyFor, toolHarness, workspace } from '../../tools/helpers.ts';
import { type TarEntry, tarGz } from './tarball.ts';

const FOLDERS = join(root, 'test', 'fixtures', 'skill-folders');
const h = toolHarness();
const tools = new Map<string, RegisteredTool>();
const registry = { list: () => [...tools.values()], get: (n: string) => tools.get(n) };

before(async () => {
  for (const name of ['bash', 'js_exec', 'web_fetch']) tools.set(name, await h.tool(name));
});
after(() => h.close());

/** A tarball of a fixture folder under one top folder, the way registries publish skills. */
function tarballOf(name: string): string {
  const entries: TarEntry[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(FOLDERS, name, rel)).sort()) {
      const p = rel ? `${rel}/${e}` : e;
      if (statSync(join(FOLDERS, name, p)).isDirectory()) walk(p);
      else entries.push({ path: `${name}/${p}`, body: readFileSync(join(FOLDERS, name, p)) });
    }
  };
  walk('');
  const file = join(tempDir('boxbot-tar-'), `${name}.tar.gz`);
  writeFileSync(file, tarGz(entries));
  return file;
}

/** Installs `source` into a fresh data dir and loads the skills there. */
async function installed(source: string): Promise<{ skills: Skill[]; dir: string }> {
  const dir = join(tempDir('boxbot-data-'), 'extensions', 'skills');
  await installSkill(source, dir);
  const { skills, problems } = await loadSkills([{ path: dir, source: 'extension' }]);
  assert.deepEqual(problems, []);
  return { skills, dir };
}

const run = (skills: Skill[], ws: string, input: Record<string, unknown>, policy = policyFor(ws)) =>
  createSkillRunTool({ catalog: staticSkillCatalog(skills), registry, sandbox: h.sandbox, policy }).run(input, {});

describe('skills in the sandbox', () => {
  it('a skill installed from a tarball is loaded, read and run through the agent loop', async (t) => {
    const { skills } = await installed(tarballOf('csv-report'));
    const ws = workspace({ 'sales.csv': 'region,amount\nnorth,120\nsouth,80\neast,42\n' });
    const emu = await startLlmEmulator();
    t.after(() => emu.close());
    emu.script([
      llm.answer([llm.toolCalls(llm.call('skill', { name: 'csv-report' }))]),
      llm.answer([llm.toolCalls(llm.call('skill', { name: 'csv-report', file: 'references/format.md' }))]),
      llm.answer([
        llm.toolCalls(llm.call('skill_run', { name: 'csv-report', script: 'scripts/totals.sh', args: ['sales.csv'] })),
      ]),
      llm.say('rows: 3, total: 242'),
    ]);
    const config = configSchema.parse({
      providers: { local: { type: 'openai-compatible', baseURL: emu.openaiBaseURL } },
    });
    const policy: AgentPolicy = { ...policyFor(ws), model: 'local/m' };
    const r = await runAgent({
      input: 'What are the totals of sales.csv?',
      policy,
      deps: {
        resolveModel: (spec) => resolveModel(spec ?? 'local/m', { config, secrets: {} }),
        registry,
        sandbox: h.sandbox,
        skills: staticSkillCatalog(skills),
        costOf: () => 0,
      },
    });
    emu.assertDone();
    assert.equal(r.outcome, 'final', r.error);
    assert.equal(r.text, 'rows: 3, total: 242');
    assert.deepEqual(
      r.toolCalls.map((c) => [c.name, c.isError]),
      [
        ['skill', false],
        ['skill', false],
        ['skill_run', false],
      ],
    );
    const bodies = emu.requests.map((q) => JSON.stringify(q.body));
    // Progressive: the first request names the skill and its one line, not its instructions or files.
    assert.match(bodies[0]!, /csv-report: Summarize a CSV file of the workspace/);
    assert.doesNotMatch(bodies[0]!, /totals\.sh/);
    assert.match(bodies[1]!, /Run `scripts\/totals\.sh`/);
    assert.match(bodies[1]!, /Scripts \(run with skill_run; the folder is \/skill\): scripts\/plot\.py/);
    assert.match(bodies[1]!, /References \(read with skill, file=...\): references\/format\.md/);
    assert.match(bodies[2]!, /One line: `rows: <number of data rows>/);
    assert.match(bodies[3]!, /rows: 3, total: 242/);
    // The script wrote into the conversation's workspace, through the sandbox.
    assert.equal(readFileSync(join(ws, 'report.md'), 'utf8'), 'rows: 3, total: 242\n');
  });

  it('a JavaScript script runs in the sandbox with its arguments', async () => {
    const { skills } = await installed(join(FOLDERS, 'csv-report'));
    const r = await run(skills, workspace(), {
      name: 'csv-report',
      script: 'scripts/weekday.js',
      args: ['2026-11-27'],
    });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /2026-11-27 is a Friday/);
    assert.match(r.untrusted ?? '', /scripts\/weekday\.js of skill csv-report \(installed from /);
  });

  it("a skill's scripts see nothing of the host: no /etc, no environment, no way out of the mounts", async () => {
    process.env.BOXBOT_TEST_CANARY_API_KEY = 'canary-0123456789';
    try {
      const { skills } = await installed(tarballOf('snoop'));
      const ws = workspace({ 'mine.txt': 'workspace file' });
      const sh = await run(skills, ws, { name: 'snoop', script: 'scripts/snoop.sh' });
      assert.doesNotMatch(sh.content, /canary-0123456789/);
      assert.doesNotMatch(sh.content, /root:/);
      assert.match(sh.content, /cat: \/etc\/passwd: No such file or directory/);
      assert.match(sh.content, /cat: \/proc\/self\/environ: No such file or directory/);
      assert.match(sh.content, /key=none home=\//);
      const js = await run(skills, ws, { name: 'snoop', script: 'scripts/snoop.js' });
      assert.equal(js.isError, false, js.content);
      assert.match(js.content, /process: undefined\nrequire: undefined\nDeno: undefined\nenv: null/);
      assert.doesNotMatch(js.content, /canary/);
    } finally {
      delete process.env.BOXBOT_TEST_CANARY_API_KEY;
    }
  });

  it('the skill folder is read-only to its own scripts', async () => {
    const dir = tempDir('boxbot-skill-src-');
    cpSync(join(FOLDERS, 'snoop'), dir, { recursive: true });
    writeFileSync(join(dir, 'scripts', 'rewrite.sh'), 'echo evil > /skill/SKILL.md && echo wrote || echo refused\n');
    const { skills, dir: skillsDir } = await installed(dir);
    const r = await run(skills, workspace(), { name: 'snoop', script: 'scripts/rewrite.sh' });
    assert.match(r.content, /EROFS: read-only file system, open '\/skill\/SKILL\.md'/);
    assert.match(readFileSync(join(skillsDir, 'snoop', 'SKILL.md'), 'utf8'), /^---\nname: snoop/);
  });

  it('a skill changed after it was loaded does not run', async () => {
    const { skills, dir } = await installed(join(FOLDERS, 'csv-report'));
    appendFileSync(join(dir, 'csv-report', 'scripts', 'totals.sh'), '\ncat /etc/passwd\n');
    const ws = workspace({ 'sales.csv': 'region,amount\nnorth,1\n' });
    const r = await run(skills, ws, { name: 'csv-report', script: 'scripts/totals.sh', args: ['sales.csv'] });
    assert.equal(r.isError, true);
    assert.match(r.content, /changed since it was approved; it runs again after boxbot skill approve csv-report/);
    assert.equal(existsSync(join(ws, 'report.md')), false);
  });

  it('an approval question for skill_run shows the folders and hosts the script would get', async () => {
    const { skills, dir } = await installed(join(FOLDERS, 'csv-report'));
    const ws = workspace({ 'sales.csv': 'region,amount\nnorth,1\n' });
    const policy = policyFor(ws, { network: { allow: ['api.example.com'], block: ['private'] } });
    const asked: ApprovalQuestion[] = [];
    const set = createToolSet({
      wasm: registry,
      builtins: [createSkillRunTool({ catalog: staticSkillCatalog(skills), registry, sandbox: h.sandbox, policy })],
      policy: { ...policy, approvals: { tools: ['skill_run'] } },
      sandbox: h.sandbox,
      gate: createApprovalGate({ tools: ['skill_run'] }, async (q) => {
        asked.push(q);
        return { approved: false, reason: 'denied in the test' };
      }),
    });
    const input = { name: 'csv-report', script: 'scripts/totals.sh', args: ['sales.csv'] };
    const r = await set.call({ id: '1', name: 'skill_run', input }, new AbortController().signal);
    assert.deepEqual(r, { content: 'refused: denied in the test', isError: true });
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0]!.folders, [
      { path: ws, readOnly: false },
      { path: join(dir, 'csv-report'), readOnly: true },
    ]);
    assert.deepEqual(asked[0]!.hosts, ['api.example.com']);
    assert.equal(existsSync(join(ws, 'report.md')), false, 'nothing ran');
  });

  it('a Python script is refused, saying why; an unlisted script is refused', async () => {
    const { skills } = await installed(join(FOLDERS, 'csv-report'));
    const py = await run(skills, workspace(), { name: 'csv-report', script: 'scripts/plot.py', args: ['x'] });
    assert.deepEqual(py, { content: PYTHON_REFUSED, isError: true });
    const other = await run(skills, workspace(), { name: 'csv-report', script: '../../etc/passwd' });
    assert.equal(other.isError, true);
    assert.match(other.content, /has no script "\.\.\/\.\.\/etc\/passwd"; its scripts: scripts\/plot\.py/);
  });

  it("installs from a git repository over http (isomorphic-git, no shell), to the folder's hash", async (t) => {
    const repo = tempDir('boxbot-git-');
    cpSync(join(FOLDERS, 'csv-report'), join(repo, 'csv-report.git-src'), { recursive: true });
    const src = join(repo, 'csv-report.git-src');
    const git = (args: string[], cwd: string) =>
      new Promise<void>((ok, fail) => {
        const p = spawn('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
        p.on('exit', (c) => (c === 0 ? ok() : fail(new Error(`git ${args.join(' ')} exited ${c}`))));
      });
    await git(['init', '-q', '-b', 'main'], src);
    await git(['add', '.'], src);
    await git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'skill'], src);
    await git(['clone', '-q', '--bare', src, join(repo, 'csv-report.git')], repo);
    const server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const cgi = spawn('git', ['http-backend'], {
        env: {
          GIT_PROJECT_ROOT: repo,
          GIT_HTTP_EXPORT_ALL: '1',
          PATH_INFO: u.pathname,
          QUERY_STRING: u.search.slice(1),
          REQUEST_METHOD: req.method ?? 'GET',
          CONTENT_TYPE: req.headers['content-type'] ?? '',
          PATH: process.env.PATH ?? '',
        },
      });
      req.pipe(cgi.stdin);
      const chunks: Buffer[] = [];
      cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
      cgi.on('close', () => {
        const out = Buffer.concat(chunks);
        const end = out.indexOf('\r\n\r\n');
        const headers: Record<string, string> = {};
        let status = 200;
        for (const line of out.subarray(0, end).toString().split('\r\n')) {
          const i = line.indexOf(':');
          const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
          if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10);
          else headers[k] = v;
        }
        res.writeHead(status, headers);
        res.end(out.subarray(end + 4));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/csv-report.git`;
    const dir = join(tempDir('boxbot-data-'), 'extensions', 'skills');
    const fromGit = await installSkill(url, dir);
    const fromFolder = await installSkill(join(FOLDERS, 'csv-report'), join(tempDir('boxbot-data-'), 'skills'));
    assert.equal(fromGit.name, 'csv-report');
    assert.equal(fromGit.record.sha256, fromFolder.record.sha256);
    assert.equal(existsSync(join(dir, 'csv-report', '.git')), false);
    await assert.rejects(installSkill(`${url.replace('csv-report', 'missing')}`, dir), /git clone of .* failed/);
  });
});
