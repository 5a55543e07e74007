// `boxbot ask` with the config's MCP servers, as a user runs it (the installed bin) against the
// LLM emulator and a real MCP server on 127.0.0.1: the server's tool is offered and called with
// --access full, and left out at the default read-only access (it is Execute by default).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startMcpServer } from '../agent/mcp/mcp-server.ts';
import { llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { boxbotArgv, shareCache, tempDir } from '../helpers.ts';

function boxbot(args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, boxbotArgv(args), {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end('');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('boxbot ask offers the MCP servers of the config, filtered by --access', async (t) => {
  const emu = await startLlmEmulator();
  t.after(() => emu.close());
  const server = await startMcpServer([
    { name: 'echo', run: (a) => ({ content: [{ type: 'text', text: `echo: ${a.text}` }] }) },
  ]);
  t.after(() => server.close());
  const work = tempDir('boxbot-ask-mcp-');
  writeFileSync(
    join(work, 'boxbot.config.json'),
    JSON.stringify({
      dataDir: shareCache(join(tempDir('boxbot-ask-mcp-data-'), 'data')),
      model: 'openai/gpt-4o-mini',
      mcp: { servers: { kb: { url: server.url } } },
    }),
  );
  const env = { OPENAI_API_KEY: 'sk-test-ask-000000000', OPENAI_BASE_URL: emu.openaiBaseURL };
  emu.script([llm.answer([llm.toolCalls(llm.call('kb__echo', { text: 'hi' }))]), llm.say('It echoed hi.')]);
  const r = await boxbot(['ask', 'echo hi', '--access', 'full'], work, env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'It echoed hi.\n');
  assert.equal(emu.requests.at(-1)!.body.messages.at(-1).content, 'echo: hi');

  emu.script([llm.say('No tools.')]);
  const ro = await boxbot(['ask', 'hello'], work, env);
  assert.equal(ro.code, 0, ro.stderr);
  const offered = (emu.requests.at(-1)!.body.tools ?? []).map((d: { function: { name: string } }) => d.function.name);
  assert.equal(offered.includes('kb__echo'), false, `${offered}`);
  emu.assertDone();
});
