// Telegram specifics of buttons and the command menu: a press the gateway says nothing about is
// still answered (the button stops spinning), and the menu names a command's argument.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelAdapter, InboundMessage } from '../../src/adapters/index.ts';
import { ADA, type TelegramHarness, telegramHarness } from '../emulators/telegram/harness.ts';
import { until } from './contract.ts';

/** Starts `adapter`, collecting what it delivers, and sends Ada a message with one button `a`. */
async function offerButton(h: TelegramHarness, adapter: ChannelAdapter = h.adapter) {
  const got: InboundMessage[] = [];
  await adapter.start(async (m) => {
    got.push(m);
  });
  const sent = await adapter.send(h.directTarget(), 'pick', { buttons: [{ id: 'a', label: 'A' }] });
  return { got, sent };
}

test('a press the gateway does not answer is answered empty once its window ends', async () => {
  const h = await telegramHarness();
  const adapter = h.newAdapter({ pressAnswerWindowMs: 20 });
  try {
    const { got, sent } = await offerButton(h, adapter);
    await h.controls!.press({ messageId: sent.messageId, buttonId: 'a', userId: String(ADA.id) });
    await until(() => h.emulator.callbacks.answers.length === 1, 'the empty answer');
    assert.equal(got.length, 1);
    assert.deepEqual(h.emulator.callbacks.answers[0], {
      queryId: got[0]!.action!.handle,
      userId: String(ADA.id),
      showAlert: false,
    });
    // Answered already: a late answerPress is refused by Telegram, not silently lost.
    await assert.rejects(adapter.answerPress!(got[0]!, 'too late'), /query is too old/);
  } finally {
    await h.close();
  }
});

test('an answer given in time is the only answer, shown as an alert', async () => {
  const h = await telegramHarness();
  try {
    const { got, sent } = await offerButton(h);
    await h.controls!.press({ messageId: sent.messageId, buttonId: 'a', userId: String(ADA.id) });
    await until(() => got.length === 1, 'the press');
    await h.adapter.answerPress!(got[0]!, 'Approved');
    await h.adapter.stop(); // would answer anything still pending
    assert.deepEqual(
      h.emulator.callbacks.answers.map((a) => [a.text, a.showAlert]),
      [['Approved', true]],
    );
  } finally {
    await h.close();
  }
});

test('the command menu lists each command with its argument named in the description', async () => {
  const h = await telegramHarness();
  try {
    await h.adapter.setCommands!([
      { name: 'model', description: 'Show or switch the model', argument: { name: 'name', description: 'a model' } },
      { name: 'new', description: 'Start a new conversation' },
    ]);
    assert.deepEqual(h.emulator.callbacks.commands, [
      { command: 'model', description: 'Show or switch the model [name]' },
      { command: 'new', description: 'Start a new conversation' },
    ]);
  } finally {
    await h.close();
  }
});

test('a press of a button the bot does not act on (a game) is answered at once, and not delivered', async () => {
  const h = await telegramHarness();
  try {
    const { got, sent } = await offerButton(h);
    const chat = { id: ADA.id, type: 'private' as const, first_name: ADA.first_name };
    const update = h.emulator.pressButton({ chat, from: ADA, messageId: sent.messageId, data: 'a' });
    const { data: _none, ...game } = update.callback_query as Record<string, unknown>;
    const gameQuery = h.emulator.callbacks.newQuery(String(ADA.id));
    h.emulator.pushUpdate({ callback_query: { ...game, id: gameQuery, game_short_name: 'chess' } });
    await until(() => h.emulator.callbacks.answers.some((a) => a.queryId === gameQuery), 'the game press answered');
    await until(() => got.length === 1, 'the real press');
    assert.equal(got.filter((m) => m.action).length, 1);
  } finally {
    await h.close();
  }
});
