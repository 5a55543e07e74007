// Upgrading a data folder whose web chat kept what each session showed as files
// (`<dataDir>/web-display/<session>.json`): the next start moves them into the store, and the
// chat's history replays exactly what the file held; the file is kept, renamed `.migrated`.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';

let bot: RestartableBoxbot;
before(async () => {
  bot = await bootBoxbot({});
});
after(async () => {
  await bot?.close();
});

/** A browser's first visit: its cookie, the owner prefix of its sessions and the page token. */
async function visit(cookie?: string) {
  const res = await fetch(`${bot.app.url}/`, cookie ? { headers: { cookie } } : {});
  const page = await res.text();
  return {
    cookie:
      cookie ??
      res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .join('; '),
    owner: /"OWNER":"([^"]+)"/.exec(page)![1]!,
    token: /"TOKEN":"([^"]+)"/.exec(page)![1]!,
  };
}

test("an older version's display files move into the store at start; the history replays them", async () => {
  const me = await visit();
  const session = `${me.owner}-tab0123456789`;
  const shown = [
    { type: 'user', id: 'm0001', text: 'make me a report' },
    { type: 'activity', kind: 'tool-start', text: 'editing out/report.csv…', detail: '{}', for: 'm0001' },
    { type: 'activity', kind: 'tool-end', text: 'write done', for: 'm0001' },
    { type: 'message', id: '1700000000000000', text: 'Here is the report.', for: 'm0001' },
    { type: 'note', text: 'Not sent: not accepted, try again' },
  ];
  await bot.stop();
  const dir = join(bot.dataDir, 'web-display');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${session}.json`), JSON.stringify(shown));
  await bot.restart();

  const again = await visit(me.cookie);
  const res = await fetch(`${bot.app.url}/chat/history?session=${session}`, {
    headers: { cookie: me.cookie, 'x-boxbot-token': again.token },
  });
  assert.equal(res.status, 200);
  const history = (await res.json()) as { events: unknown[] };
  assert.deepEqual(history.events, shown, 'replayed exactly as the file held it');
  assert.ok(existsSync(join(dir, `${session}.json.migrated`)), 'the file is kept, renamed');
  assert.ok(!existsSync(join(dir, `${session}.json`)));
  assert.ok(
    bot.logs.some((l) => l.msg === 'web chat display files moved into the store' && l.sessions === 1),
    'the move is logged',
  );

  // A second restart reads the store (the renamed file is not read again).
  await bot.restart();
  const third = await visit(me.cookie);
  const later = await fetch(`${bot.app.url}/chat/history?session=${session}`, {
    headers: { cookie: me.cookie, 'x-boxbot-token': third.token },
  });
  assert.deepEqual(((await later.json()) as { events: unknown[] }).events, shown);
});
