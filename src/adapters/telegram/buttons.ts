// Buttons on Telegram: one row of an inline keyboard (callback_data = the button id) and the
// answers owed to callback queries (Telegram shows a spinner on the pressed button until the query is answered).
import type { InlineKeyboardMarkup } from 'grammy/types';
import { checkButtonIds } from '../button-ids.ts';
import type { Button } from '../types.ts';

/** The inline keyboard of one row of buttons (an empty list: a keyboard with no buttons, i.e. none). */
export function inlineKeyboard(buttons: Button[]): InlineKeyboardMarkup {
  return {
    inline_keyboard:
      checkButtonIds('telegram', buttons).length > 0
        ? [buttons.map((b) => ({ text: b.label, callback_data: b.id }))]
        : [],
  };
}

// A pressed button spins until its callback query is answered, and a query is answered once.
// The gateway answers with text through answerPress when it has something to say; when it says
// nothing within `windowMs` after the press was accepted, the query is answered empty so the
// spinner stops. A later answerPress then gets Telegram's "query is too old".

/** Callback queries accepted but not yet answered, each answered empty when its window ends. */
export class PendingPresses {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly windowMs: number,
    private readonly answerEmpty: (queryId: string) => Promise<void>,
  ) {}

  /** Starts the window of a query the sink accepted (`windowMs` 0: answer it empty at once). */
  track(queryId: string, windowMs = this.windowMs): void {
    if (this.timers.has(queryId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(queryId);
      void this.answerEmpty(queryId);
    }, windowMs);
    timer.unref();
    this.timers.set(queryId, timer);
  }

  /** Takes a query out of its window (the caller answers it now). */
  take(queryId: string): void {
    clearTimeout(this.timers.get(queryId));
    this.timers.delete(queryId);
  }

  /** Answers every waiting query empty at once (on stop: no spinner is left turning). */
  async flush(): Promise<void> {
    const ids = [...this.timers.keys()];
    for (const id of ids) this.take(id);
    await Promise.all(ids.map((id) => this.answerEmpty(id)));
  }
}
