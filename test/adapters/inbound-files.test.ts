// Where each platform's file download may carry a credential, and where it must not: Telegram's
// file URL holds the bot token (never in an attachment, an error or a log line); Discord's CDN
// gets no token at all; Slack's url_private gets the bot token, and only on Slack's own hosts.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { AdapterError, type InboundMessage } from '../../src/adapters/index.ts';
import { mayCarryToken } from '../../src/adapters/slack/files.ts';
import { DM_CHANNEL, slackHarness } from '../emulators/slack/harness.ts';
import { ADA, telegramHarness } from '../emulators/telegram/harness.ts';
import { waitUntil } from '../helpers.ts';
import { discordHarness } from './discord-harness.ts';

const bytes = new Uint8Array(2048).fill(9);

test('telegram: getFile then the token URL, fetched by the host; the token is in no attachment or error', async () => {
  const h = await telegramHarness({ mode: 'polling' });
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  try {
    h.emulator.userFile({ chat: { id: ADA.id, type: 'private', first_name: 'Ada' }, from: ADA, kind: 'voice', bytes });
    await waitUntil(() => got.length === 1, 'the voice note', 5000);
    const a = got[0]!.attachments[0]!;
    assert.equal(a.url, undefined, 'no URL in the attachment: it would hold the token');
    assert.equal(JSON.stringify(got[0]).includes(h.emulator.token), false);
    assert.deepEqual((await h.adapter.fetchAttachment!(a, { maxBytes: 4096 })).bytes.length, 2048);
    assert.deepEqual(
      h.emulator.calls.filter((c) => c.method === 'getFile').map((c) => c.params.file_id),
      [a.id],
    );
    assert.deepEqual(
      h.emulator.files.downloads.map((d) => d.status),
      [200],
    );
    // The file server fails: the download fails, and the error names no URL or token.
    h.emulator.files.failDownloads = 1;
    await assert.rejects(h.adapter.fetchAttachment!(a, { maxBytes: 4096 }), (e: unknown) => {
      assert.ok(e instanceof AdapterError);
      assert.equal(e.message.includes(h.emulator.token), false, e.message);
      assert.equal(e.message.includes('/file/bot'), false, e.message);
      return true;
    });
  } finally {
    await h.adapter.stop();
    await h.close();
  }
});

test('discord: the attachment URL is fetched without the bot token', async () => {
  const h = await discordHarness();
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  try {
    h.emu.userFile({ channelId: h.dm.id, filename: 'a.bin', contentType: 'application/octet-stream', bytes });
    await waitUntil(() => got.length === 1, 'the file message', 5000);
    await h.adapter.fetchAttachment!(got[0]!.attachments[0]!, { maxBytes: 4096 });
    assert.deepEqual(
      h.emu.cdn.downloads.map((d) => [d.status, d.authorization]),
      [[200, false]],
    );
  } finally {
    await h.adapter.stop();
    await h.close();
  }
});

test('slack: url_private is fetched with the bot token; a file URL on another host is refused unasked', async () => {
  const h = await slackHarness('socket');
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  let elsewhere = 0;
  const other = createServer((_req, res) => {
    elsewhere++;
    res.end('x');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  try {
    await h.emu.userSharesFile({ channel: DM_CHANNEL, name: 'log.txt', mimetype: 'text/plain', bytes });
    await waitUntil(() => got.length === 1, 'the file share', 5000);
    const a = got[0]!.attachments[0]!;
    assert.equal((await h.adapter.fetchAttachment!(a, { maxBytes: 4096 })).bytes.length, 2048);
    assert.deepEqual(
      h.emu.files.downloads.map((d) => d.authorized),
      [true],
    );
    const port = (other.address() as AddressInfo).port;
    await assert.rejects(
      h.adapter.fetchAttachment!(
        { ...a, url: `http://127.0.0.1:${port}/files-pri/T-F/download/log.txt` },
        {
          maxBytes: 4096,
        },
      ),
      /not on a Slack file host/,
    );
    assert.equal(elsewhere, 0, 'the other host was never asked (and never saw the token)');
  } finally {
    other.close();
    await h.adapter.stop();
    await h.close();
  }
});

test('slack: the token goes to https Slack hosts and the configured API origin only', () => {
  const api = 'http://127.0.0.1:9999/api/';
  assert.equal(mayCarryToken('https://files.slack.com/files-pri/T1-F1/x.png', 'https://slack.com/api/'), true);
  assert.equal(mayCarryToken('http://files.slack.com/files-pri/T1-F1/x.png', 'https://slack.com/api/'), false);
  assert.equal(mayCarryToken('https://files.slack.com.evil.example/x', 'https://slack.com/api/'), false);
  assert.equal(mayCarryToken('http://127.0.0.1:9999/files-pri/x', api), true);
  assert.equal(mayCarryToken('http://127.0.0.1:9998/files-pri/x', api), false);
});
