// A real headless Chromium for the web chat's browser tests, through puppeteer-core (no browser
// download): the system's Chromium, found from CHROME_PATH or the usual install paths. Without one
// the tests are skipped with a message saying what is missing and how to install it. Also the
// page steps the web chat's browser tests share (sign in through a link, say, wait for text).
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { root } from '../helpers.ts';

// Debian's /usr/bin/chromium is a shell wrapper; the binary behind it starts without its noise.
const CANDIDATES = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The browser binary to use, or undefined. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/** Why the browser tests are skipped, or false when a browser is there. */
export function browserMissing(): string | false {
  if (findChromium()) return false;
  const env = process.env.CHROME_PATH;
  return env
    ? `CHROME_PATH=${env} does not exist: point it at a Chromium or Chrome binary (\`apt-get install chromium\`)`
    : 'no Chromium found (looked at CHROME_PATH and ' +
        `${CANDIDATES.slice(0, 3).join(', ')}): install it with \`apt-get install chromium\` or set CHROME_PATH`;
}

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: findChromium()!,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}

/** Where screenshots go (git-ignored), created on first use. */
export function screenshotDir(): string {
  const dir = join(root, 'test-results', 'web-chat');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A free port on loopback, so a restarted gateway comes back at the same address. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Resolves once the chat page says it is connected. */
export const connected = (p: Page) =>
  p.waitForFunction(() => document.getElementById('state')?.textContent === 'connected', { timeout: 30_000 });

/** Opens a sign-in `link` in a new page of `ctx`, presses its button and waits for where it leads. */
export async function openSignIn(ctx: BrowserContext, link: string): Promise<Page> {
  const p = await ctx.newPage();
  await p.evaluateOnNewDocument('globalThis.__name = (f) => f;');
  await p.goto(link);
  await Promise.all([p.waitForNavigation(), p.click('button[type=submit]')]);
  return p;
}

/** Types `text` into the chat's box and sends it. */
export async function say(p: Page, text: string): Promise<void> {
  await p.type('#t', text);
  await p.keyboard.press('Enter');
}

/** Resolves once an element matching `selector` contains `text`. */
export const waitText = (p: Page, selector: string, text: string) =>
  p.waitForFunction(
    (s, t) => Array.from(document.querySelectorAll(s)).some((e) => e.textContent?.includes(t)),
    { timeout: 30_000 },
    selector,
    text,
  );
