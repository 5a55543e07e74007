// Public names of the Slack adapter: the factory, its options and capabilities, and the pure
// pieces (normalize, format) that tests and the gateway may reuse.
export { createSlackAdapter, SLACK_CAPABILITIES, type SlackAdapterOptions } from './adapter.ts';
export { DEFAULT_SLACK_API_URL } from './api.ts';
export { DEFAULT_SLACK_EVENTS_PATH } from './events-route.ts';
export {
  escapeSlackText,
  SLACK_MARKDOWN_BLOCK_LIMIT,
  type SlackMarkdownBlock,
  slackMarkdownBlocks,
  toSlackMrkdwn,
  unescapeSlackText,
} from './format.ts';
export { normalizeSlackAction, normalizeSlackCommand } from './interactions.ts';
export { normalizeSlackEvent, type SlackNormalizeContext, toPlainText } from './normalize.ts';
