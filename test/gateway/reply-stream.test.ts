// ReplyStream on its own, over a real OutboundQueue and the fake platform: a preview message
// created from the first text and edited as more arrives, a one-line tool status under it,
// the tail kept when the text outgrows the limit, typing only after the delay, nothing
// previewed where the platform cannot edit, and a failed preview that is not fatal.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdapterCapabilities } from '../../src/adapters/index.ts';
import { silentLogger } from '../../src/core/log.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { FIRST_PREVIEW_DELAY_MS, ReplyStream } from '../../src/gateway/reply.ts';
import { waitUntil } from '../helpers.ts';
import { FakeAdapter } from './fakes.ts';

const caps = (over: Partial<AdapterCapabilities> = {}): AdapterCapabilities => ({
  edit: true,
  typing: true,
  threads: false,
  maxTextLength: 100,
  editIntervalMs: 5,
  typingIntervalMs: 5000,
  ...over,
});
const target = { conversationKey: 'telegram:100', chatId: '100' };

function setup(c: AdapterCapabilities = caps()) {
  const adapter = new FakeAdapter('telegram', c);
  const queue = new OutboundQueue(adapter, { backoffMs: 1 });
  const stream = new ReplyStream(queue, c, target, silentLogger);
  return { adapter, queue, stream };
}

describe('ReplyStream', () => {
  test('the first text creates one preview message; later text edits it; close() returns its id', async () => {
    const { adapter, stream } = setup();
    stream.onEvent({ type: 'text-delta', text: 'Hello' });
    await waitUntil(() => adapter.posted.length === 1, 'the preview message', 5000);
    stream.onEvent({ type: 'text-delta', text: ', world' });
    await waitUntil(() => adapter.posted[0]!.text === 'Hello, world', 'the edited preview', 5000);
    const id = await stream.close();
    assert.equal(id, adapter.posted[0]!.messageId);
    assert.equal(adapter.posted.length, 1, 'one message, edited');
    assert.equal(stream.shown, 'Hello, world');
  });

  const previews: { name: string; events: Parameters<ReplyStream['onEvent']>[0][]; shown: string }[] = [
    {
      name: 'a tool status shows under the text, without Markdown marks',
      events: [
        { type: 'text-delta', text: 'Looking' },
        { type: 'status', text: 'running *grep* on `src`_' },
      ],
      shown: 'Looking\n\n_running grep on src_',
    },
    {
      name: 'a status alone is the preview',
      events: [{ type: 'status', text: 'reading files' }],
      shown: '_reading files_',
    },
    {
      name: 'status-clear removes the status line',
      events: [{ type: 'text-delta', text: 'Done' }, { type: 'status', text: 'x' }, { type: 'status-clear' }],
      shown: 'Done',
    },
    {
      name: 'the status stays while more text arrives',
      events: [
        { type: 'status', text: 'x' },
        { type: 'text-delta', text: 'Answer' },
      ],
      shown: 'Answer\n\n_x_',
    },
    {
      name: "a managed run's checklist shows under the text, replaced by each newer one, above the status",
      events: [
        { type: 'text-delta', text: 'Working' },
        { type: 'checklist', lines: ['⏳ writer: notes', '◻️ tester: tests'] },
        { type: 'checklist', lines: ['✅ writer: notes', '⏳ tester: tests'] },
        { type: 'status', text: 'delegate' },
      ],
      shown: 'Working\n\n✅ writer: notes\n⏳ tester: tests\n\n_delegate_',
    },
    {
      name: 'too long: the tail is kept, after an ellipsis, within the limit',
      events: [{ type: 'text-delta', text: `${'a'.repeat(80)}${'b'.repeat(40)}` }],
      shown: `…${'a'.repeat(58)}${'b'.repeat(40)}`,
    },
    {
      name: 'too long with a status: the status keeps its room',
      events: [
        { type: 'text-delta', text: 'a'.repeat(120) },
        { type: 'status', text: 'grep' },
      ],
      shown: `…${'a'.repeat(90)}\n\n_grep_`,
    },
  ];
  for (const c of previews) {
    test(c.name, async () => {
      const { adapter, stream } = setup();
      for (const e of c.events) stream.onEvent(e);
      await waitUntil(() => adapter.posted[0]?.text === c.shown, `the preview ${JSON.stringify(c.shown)}`, 5000);
      await stream.close();
      assert.ok(adapter.posted[0]!.text.length <= 100);
      assert.equal(stream.shown, c.shown);
    });
  }

  test('an answer complete before the first preview delay is never previewed', async () => {
    // A timer due sooner than the delay fires first, whatever the machine's load.
    const { adapter, stream } = setup(caps({ editIntervalMs: 60_000 }));
    stream.start(60_000);
    stream.onEvent({ type: 'text-delta', text: 'Hello' });
    await new Promise((r) => setTimeout(r, FIRST_PREVIEW_DELAY_MS / 8));
    assert.equal(await stream.close(), undefined);
    assert.equal(adapter.posted.length, 0, 'no preview message');
    assert.equal(stream.shown, undefined);
  });

  test('whitespace-only text makes no preview', async () => {
    const { adapter, stream } = setup();
    stream.onEvent({ type: 'text-delta', text: '  \n ' });
    assert.equal(await stream.close(), undefined);
    assert.equal(adapter.posted.length, 0);
  });

  test('a platform that cannot edit gets no preview at all', async () => {
    const { adapter, stream } = setup(caps({ edit: false }));
    stream.onEvent({ type: 'text-delta', text: 'Hello' });
    assert.equal(await stream.close(), undefined);
    assert.equal(adapter.posted.length, 0);
    assert.equal(stream.shown, undefined);
  });

  test('a failed preview is not fatal: close() resolves with no message', async () => {
    const { adapter, stream } = setup();
    adapter.beforeSend = () => {
      throw new Error('platform down');
    };
    stream.onEvent({ type: 'text-delta', text: 'Hello' });
    await waitUntil(() => adapter.calls.length === 1, 'the preview attempt', 5000);
    assert.equal(await stream.close(), undefined);
    assert.equal(stream.shown, undefined);
  });

  test('typing starts after the delay, only where the platform has it, and stops at close()', async () => {
    const { adapter, stream } = setup();
    stream.start(0);
    await waitUntil(() => adapter.typings === 1, 'a typing signal', 5000);
    await stream.close();

    const late = setup();
    late.stream.start(60_000);
    await late.stream.close();
    assert.equal(late.adapter.typings, 0, 'an answer done before the delay shows no typing');

    const none = setup(caps({ typing: false }));
    none.stream.start(0);
    await none.stream.close();
    assert.equal(none.adapter.typings, 0);
  });
});
