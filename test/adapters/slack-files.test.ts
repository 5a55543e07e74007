// Slack's external upload flow as the adapter drives it against the emulator: a file in a thread
// lands in that thread with its caption; a failed POST of the bytes is retryable and shares
// nothing, and the whole flow tried again delivers the file once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError } from '../../src/adapters/index.ts';
import { slackHarness } from '../emulators/slack/harness.ts';

const file = { name: 'log.txt', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('line 1\nline 2\n')) };

test('a file sent to a thread is shared in that thread, with its caption as the comment', async () => {
  const h = await slackHarness('socket');
  try {
    const target = { conversationKey: 'slack:T1:C0GROUP:1712.000100', chatId: 'C0GROUP', threadId: '1712.000100' };
    const sent = await h.adapter.sendFile!(target, { ...file, caption: 'the log' });
    const [shared] = h.emu.botFiles();
    assert.equal(shared?.id, sent.messageId);
    assert.equal(shared?.name, 'log.txt');
    assert.equal(shared?.channel, 'C0GROUP');
    assert.equal(shared?.threadTs, '1712.000100');
    assert.equal(shared?.comment, 'the log');
    assert.equal(Buffer.from(shared!.bytes).toString(), 'line 1\nline 2\n');
  } finally {
    await h.close();
  }
});

test('the upload URL failing (503) is retryable and shares nothing; tried again, the file arrives once', async () => {
  const h = await slackHarness('socket');
  try {
    h.emu.api.uploadFaults.push(503);
    const target = h.directTarget();
    await assert.rejects(h.adapter.sendFile!(target, file), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.equal(e.status, 503);
      assert.equal(e.retryable, true);
      assert.doesNotMatch(e.message, /upload\/F/, 'the one-time URL is not in the error');
      return true;
    });
    assert.deepEqual(h.emu.botFiles(), []);
    await h.adapter.sendFile!(target, file);
    assert.deepEqual(
      h.emu.botFiles().map((f) => f.name),
      ['log.txt'],
    );
  } finally {
    await h.close();
  }
});

test('handed a journaled file id, the upload is finished: shared there already, shared now, or made anew', async () => {
  const h = await slackHarness('socket');
  try {
    const thread = { conversationKey: 'slack:T1:C0GROUP:1712.000100', chatId: 'C0GROUP', threadId: '1712.000100' };
    const handles: string[] = [];
    const upload = { onHandle: async (id: string) => void handles.push(id) };
    const sent = await h.adapter.sendFile!(thread, file, { upload });
    assert.deepEqual(handles, [sent.messageId], 'the file id is journaled before the share');
    // Already shared in this thread: nothing is shared again.
    assert.deepEqual(await h.adapter.sendFile!(thread, file, { upload: { ...upload, handle: sent.messageId } }), sent);
    assert.equal(h.emu.botFiles().length, 1);
    // Shared in that thread only: the channel itself gets it now, from the same upload.
    const channel = { conversationKey: 'slack:T1:C0GROUP', chatId: 'C0GROUP' };
    await h.adapter.sendFile!(channel, file, { upload: { ...upload, handle: sent.messageId } });
    assert.deepEqual(
      h.emu.botFiles().map((f) => [f.id, f.threadTs]),
      [
        [sent.messageId, '1712.000100'],
        [sent.messageId, undefined],
      ],
    );
    // An id Slack does not know (the upload was discarded): a new upload.
    const fresh = await h.adapter.sendFile!(channel, file, { upload: { ...upload, handle: 'F999999999' } });
    assert.notEqual(fresh.messageId, 'F999999999');
    assert.equal(h.emu.api.count('files.getUploadURLExternal'), 2);
  } finally {
    await h.close();
  }
});
