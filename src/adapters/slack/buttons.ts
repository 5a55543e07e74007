// Buttons on Slack: an `actions` block of button elements (action_id = the button id) after the
// message's content. Once a message has blocks, Slack shows the blocks instead of `text`, so the
// text goes in front as section blocks (mrkdwn, at most 3,000 characters each), unless a table
// already put it in a markdown block.
import { checkButtonIds } from '../button-ids.ts';
import type { Button } from '../types.ts';
import type { SlackMarkdownBlock } from './format.ts';

/** Slack's limit on the text of one section block. */
const SECTION_LIMIT = 3000;

/** A Block Kit block as the adapter sends it. */
export type SlackBlock =
  | SlackMarkdownBlock
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'actions'; block_id: string; elements: SlackButtonElement[] };

interface SlackButtonElement {
  type: 'button';
  action_id: string;
  text: { type: 'plain_text'; text: string; emoji: boolean };
  value: string;
  style?: 'primary' | 'danger';
}

/** The actions block of one row of buttons (labels cut to Slack's 75 characters). */
export function actionsBlock(buttons: Button[]): SlackBlock {
  return {
    type: 'actions',
    block_id: 'boxbot-buttons',
    elements: checkButtonIds('slack', buttons).map((b) => ({
      type: 'button',
      action_id: b.id,
      text: { type: 'plain_text', text: b.label.slice(0, 75), emoji: true },
      value: b.id,
      ...(b.style ? { style: b.style } : {}),
    })),
  };
}

/**
 * The blocks of one post or edit: `content` (a table's markdown block) or the mrkdwn `body` in
 * sections, then the buttons. Undefined when there is nothing but text (Slack then shows `text`);
 * an empty list when buttons are being removed from a message that had them.
 */
export function messageBlocks(
  body: string,
  content: SlackMarkdownBlock[] | undefined,
  buttons: Button[] | undefined,
): SlackBlock[] | undefined {
  if (!buttons || buttons.length === 0) return content ?? (buttons ? [] : undefined);
  const text: SlackBlock[] = content ?? sections(body);
  return [...text, actionsBlock(buttons)];
}

function sections(body: string): SlackBlock[] {
  const out: SlackBlock[] = [];
  for (let i = 0; i < body.length; i += SECTION_LIMIT)
    out.push({ type: 'section', text: { type: 'mrkdwn', text: body.slice(i, i + SECTION_LIMIT) } });
  return out;
}
