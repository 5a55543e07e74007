// The web chat's static assets, served by the gateway itself because it runs offline (no CDN):
// the Markdown renderer's browser build from node_modules, the page's script, and the favicon.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CLIENT_SCRIPT } from './client-script.ts';

/** One asset: its body and content type. */
export interface WebAsset {
  body: string;
  type: string;
}

const require = createRequire(import.meta.url);
let markdownIt: string | undefined;

/** markdown-it's browser build (UMD, defines `window.markdownit`), read once from node_modules. */
function markdownItBundle(): string {
  markdownIt ??= readFileSync(require.resolve('markdown-it/browser'), 'utf8').replace(
    /\n\/\/# sourceMappingURL=\S+\s*$/,
    '\n',
  );
  return markdownIt;
}

/** The favicon: a small box with a smile, drawn in SVG (no binary asset to ship). */
export const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="5" width="26" height="22" rx="6" ' +
  'fill="#2563eb"/><circle cx="12" cy="14" r="2.2" fill="#fff"/><circle cx="20" cy="14" r="2.2" fill="#fff"/>' +
  '<path d="M11 20q5 4 10 0" stroke="#fff" stroke-width="2" fill="none" stroke-linecap="round"/></svg>';

/** The assets by path under `/chat/assets/`. */
export function webAsset(name: string): WebAsset | undefined {
  switch (name) {
    case 'markdown-it.js':
      return { body: markdownItBundle(), type: 'text/javascript; charset=utf-8' };
    case 'chat.js':
      return { body: CLIENT_SCRIPT, type: 'text/javascript; charset=utf-8' };
    case 'favicon.svg':
      return { body: FAVICON, type: 'image/svg+xml' };
    default:
      return undefined;
  }
}
