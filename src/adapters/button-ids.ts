// The one rule for button ids, checked where each adapter turns buttons into its platform's form:
// 1-64 bytes (Telegram's callback_data limit, the contract in types.ts). A longer id would be
// refused by Telegram in its own words, and on the web drawn as a button whose press is refused,
// so the send is refused here, naming the id.
import { AdapterError } from './errors.ts';
import type { Button, Platform } from './types.ts';

/** Longest button id, in UTF-8 bytes. */
export const MAX_BUTTON_ID_BYTES = 64;

/** Returns `buttons`, or throws AdapterError `bad-button` naming the first id that is empty or too long. */
export function checkButtonIds<B extends Button[] | undefined>(channel: Platform, buttons: B): B {
  for (const b of buttons ?? []) {
    const bytes = Buffer.byteLength(b.id);
    if (bytes === 0 || bytes > MAX_BUTTON_ID_BYTES)
      throw new AdapterError(
        channel,
        'bad-button',
        `button id ${JSON.stringify(b.id.slice(0, 80))} is ${bytes} bytes; ids are 1-${MAX_BUTTON_ID_BYTES} bytes`,
      );
  }
  return buttons;
}
