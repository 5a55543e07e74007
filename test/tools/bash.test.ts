// `bash` through the real sandbox and registry: shell syntax and the common utilities work on
// the workspace, results carry stdout/stderr/exit code, and the shell sees only its mount,
// starts no host program and cannot write under a read-only grant.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { policyFor, tempDir, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

const files = {
  'words.txt': 'pear\napple\npear\nfig\napple\npear\n',
  'data.json': '{"users":[{"name":"ada","age":36},{"name":"alan","age":41}]}',
  'src/a.ts': 'export const a = 1; // TODO\n',
  'src/b.ts': 'export const b = 2;\n',
};

describe('bash', () => {
  it('runs pipelines with sort, uniq, head and awk over workspace files', async () => {
    const ws = workspace(files);
    const r = await h.call(
      'bash',
      { command: 'sort words.txt | uniq -c | sort -rn | head -2 | awk \'{print $2"="$1}\'' },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'pear=3\napple=2');
    assert.equal(r.metadata.shellExitCode, 0);
  });

  it('has variables, loops, arithmetic, && and ||, printf and sed', async () => {
    const ws = workspace(files);
    const script = [
      'n=0',
      'for f in src/*.ts; do n=$((n + 1)); done',
      'printf "%s files\\n" "$n"',
      'test -f missing.txt && echo yes || echo no',
      'echo "Hello World" | sed -e "s/World/there/"',
      'i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo -n $i; done; echo',
    ].join('\n');
    const r = await h.call('bash', { command: script }, policyFor(ws));
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, '2 files\nno\nHello there\n123');
  });

  it('runs grep, find, wc, cut, tail and jq', async () => {
    const ws = workspace(files);
    const r = await h.call(
      'bash',
      {
        command:
          'grep -rl TODO src; find . -name "*.ts" | sort; wc -l < words.txt; tail -1 words.txt | cut -c1-2; jq -r ' +
          '".users[] | select(.age > 40) | .name" data.json',
      },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'src/a.ts\n./src/a.ts\n./src/b.ts\n6\npe\nalan');
  });

  it('changes files on the host: redirects, mkdir, cp, mv, rm', async () => {
    const ws = workspace(files);
    const r = await h.call(
      'bash',
      {
        command:
          'mkdir -p out/x && echo "first" > out/x/log.txt && echo "second" >> out/x/log.txt && cp words.txt out/ && ' +
          'mv out/words.txt out/w.txt && rm src/b.ts && echo done 2>/dev/null',
      },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'done');
    assert.equal(readFileSync(join(ws, 'out/x/log.txt'), 'utf8'), 'first\nsecond\n');
    assert.equal(readFileSync(join(ws, 'out/w.txt'), 'utf8'), files['words.txt']);
    assert.equal(existsSync(join(ws, 'src/b.ts')), false);
    assert.equal(existsSync(join(ws, 'dev')), false, '/dev is virtual, not created in the workspace');
    const find = await h.call(
      'bash',
      { command: 'find / -type f | sort; cat /dev/null; echo gone > /dev/null' },
      policyFor(ws),
    );
    assert.equal(
      find.content,
      '/data.json\n/out/w.txt\n/out/x/log.txt\n/src/a.ts\n/words.txt',
      'virtual devices are not listed',
    );
  });

  it('starts in --workdir', async () => {
    const ws = workspace(files);
    const r = await h.call('bash', { command: 'pwd; ls', workdir: 'src' }, policyFor(ws));
    assert.equal(r.content, '/src\na.ts\nb.ts');
  });

  it('returns stderr and a non-zero exit code as an error result', async () => {
    const ws = workspace(files);
    const r = await h.call('bash', { command: 'echo partial; cat nope.txt' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.match(r.content, /^partial\n\[stderr\]\ncat: nope\.txt: No such file or directory\n\[exit code 1\]$/);
    assert.equal(r.metadata.shellExitCode, 1);
  });

  it('sees only its mount: / is the workspace and nothing of the host is there', async () => {
    const ws = workspace(files);
    const r = await h.call(
      'bash',
      { command: 'ls /; cd /..; pwd; ls /proc /home /usr 2>&1 | head -3; cat /etc/passwd' },
      policyFor(ws),
    );
    assert.equal(r.isError, true, 'cat /etc/passwd fails');
    assert.doesNotMatch(r.content, /root:/);
    const listing = r.content.split('\n[stderr]')[0]!;
    assert.match(listing, /^data\.json\nsrc\nwords\.txt\n\//);
    assert.match(r.content, /\/etc\/passwd: No such file or directory/);
  });

  it('cannot follow a symlink out of the workspace', async () => {
    const ws = workspace(files);
    symlinkSync('/etc', join(ws, 'etc'));
    const r = await h.call('bash', { command: 'cat etc/passwd; ls etc | head -3; cat etc/hostname' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.doesNotMatch(r.content, /root:|passwd\n/);
  });

  it('starts no host program: anything that is not a built-in is not found', async () => {
    const ws = workspace(files);
    for (const cmd of [
      'node -e "console.log(1)"',
      '/bin/ls /',
      '/usr/bin/env',
      'python3 -c "print(1)"',
      'curl http://127.0.0.1/',
    ]) {
      const r = await h.call('bash', { command: cmd }, policyFor(ws));
      assert.equal(r.isError, true, `${cmd} must fail`);
      assert.match(r.content, /command not found|No such file|not found/, `${cmd}: ${r.content}`);
      assert.equal(r.metadata.shellExitCode, 127, `${cmd}: ${r.content}`);
    }
    // And it holds no capability to do so: no process, socket or http import.
    const spec = (await h.tool('bash')).spec;
    assert.ok(
      spec.imports.every((i) => /^wasi:(cli|clocks|random|io|filesystem)\//.test(i)),
      spec.imports.join(', '),
    );
  });

  it('cannot create links', async () => {
    const ws = workspace(files);
    const r = await h.call('bash', { command: 'ln -s /etc/passwd p; ln words.txt hard' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.equal(existsSync(join(ws, 'p')), false);
    assert.equal(existsSync(join(ws, 'hard')), false);
  });

  it('cannot write under a read-only grant', async () => {
    const ws = workspace(files);
    const r = await h.call(
      'bash',
      { command: 'cat words.txt | wc -l; rm words.txt; mkdir d; touch t' },
      policyFor(ws),
      'ReadOnly',
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /^6\n/, 'reading still works');
    assert.match(r.content, /read-only/i);
    const redirect = await h.call('bash', { command: 'echo x > new.txt' }, policyFor(ws), 'ReadOnly');
    assert.equal(redirect.isError, true);
    assert.match(redirect.content, /EROFS: read-only file system/);
    assert.equal(existsSync(join(ws, 'new.txt')), false);
    assert.equal(existsSync(join(ws, 'd')), false);
    assert.equal(readFileSync(join(ws, 'words.txt'), 'utf8'), files['words.txt']);
  });

  it('keeps nothing but files between calls', async () => {
    const ws = tempDir('boxbot-ws-');
    await h.call('bash', { command: 'X=42; cd /; echo kept > f.txt' }, policyFor(ws));
    const r = await h.call('bash', { command: 'echo "[$X]"; cat f.txt' }, policyFor(ws));
    assert.equal(r.content, '[]\nkept');
  });
});
