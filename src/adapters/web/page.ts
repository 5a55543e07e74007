// The web chat page: the document, its styles, and its settings as inert JSON. The behaviour is
// in client-script.ts and Markdown is rendered by markdown-it (raw HTML off), both served from
// /chat/assets/ by the gateway itself, so the page needs nothing from the internet and the
// Content-Security-Policy allows scripts from this server only.

/** The settings a page starts with (also what /chat/boot answers after a restart). */
export interface PageBoot {
  TOKEN: string;
  ACCESS: string;
  OWNER: string;
  /** The user key this browser signed in as; empty for the local user. */
  IDENTITY: string;
  commands: { name: string; description: string; argument?: { name: string; description: string } }[];
  /** 0 when the chat takes no files. */
  maxUploadBytes: number;
  /** Whether the stored history can be read (the gateway has a store). */
  history: boolean;
}

/** The signed-in user, shown in the header (the local user shows nothing). */
const whoLine = (identity: string) =>
  identity
    ? `<span id="who" title="signed in as">${identity.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</span>`
    : '';

/** JSON that cannot end its <script> element. */
const inert = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

// Colours are solid (no opacity) so every text meets 4.5:1 against what is behind it, in both schemes.
const STYLE = `
:root{color-scheme:light dark;--bg:#f7f7f8;--fg:#1d1d1f;--muted:#52525b;--me:#1d4ed8;--bot:#fff;--line:#c8c8d0;
--code:#eef0f3;--link:#1d4ed8;--side:#eeeef1;--accent:#1d4ed8;--danger:#b91c1c;--note:#fef3c7;--note-fg:#422006}
@media(prefers-color-scheme:dark){:root{--bg:#18181b;--fg:#e4e4e7;--muted:#a1a1aa;--bot:#27272a;--line:#52525b;
--code:#1f1f23;--link:#93c5fd;--side:#202024;--note:#3f2d06;--note-fg:#fde68a;--danger:#f87171}}
*{box-sizing:border-box}html,body{height:100%}
body{margin:0;font:15px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg);display:flex;
flex-direction:column;overflow:hidden}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}
header{padding:.5rem 1rem;border-bottom:1px solid var(--line);display:flex;gap:.75rem;align-items:center;min-width:0}
header h1{font-size:1.05rem;margin:0}#state{color:var(--muted);font-size:.85rem;flex:1;min-width:0;
overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
button{font:inherit;color:inherit;cursor:pointer}
.plain{background:none;border:1px solid var(--line);border-radius:6px;padding:.2rem .6rem}
#menu{display:none}
#app{flex:1;display:flex;min-height:0}
#search{width:100%;box-sizing:border-box;font:inherit;padding:.3rem .5rem;border:1px solid var(--line);
border-radius:6px;margin-bottom:.4rem;background:var(--bg);color:var(--fg)}
#sessions small{display:block;color:var(--muted)}
nav{width:16rem;flex:none;border-right:1px solid var(--line);background:var(--side);overflow-y:auto;padding:.5rem}
nav h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:.3rem .4rem}
nav ul{list-style:none;margin:0;padding:0}nav li button{display:block;width:100%;text-align:left;background:none;
border:0;border-radius:6px;padding:.4rem .5rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
nav li button[aria-current=true]{background:var(--bot);outline:1px solid var(--line)}
main{flex:1;display:flex;flex-direction:column;min-width:0;min-height:0}
#log{flex:1;overflow-y:auto;overflow-x:hidden;padding:1rem;display:flex;flex-direction:column;gap:.6rem}
.m{max-width:min(46rem,92%);padding:.5rem .8rem;border-radius:10px;overflow-wrap:anywhere;min-width:0}
.me{align-self:flex-end;background:var(--me);color:#fff;white-space:pre-wrap}
.bot{align-self:flex-start;background:var(--bot);border:1px solid var(--line)}
.bot a{color:var(--link)}.bot p{margin:.3rem 0}.bot h1,.bot h2,.bot h3{margin:.5rem 0 .3rem;line-height:1.25}
.bot h1{font-size:1.3rem}.bot h2{font-size:1.15rem}.bot h3{font-size:1.05rem}
.bot ul,.bot ol{margin:.3rem 0;padding-left:1.4rem}
.bot code{font-family:ui-monospace,monospace;font-size:.9em;background:var(--code);border-radius:4px;padding:0 .2em}
.code{position:relative}.bot pre{background:var(--code);padding:.6rem;border-radius:6px;overflow-x:auto;margin:.4rem 0}
.bot pre code{padding:0}
.copy{position:absolute;top:.3rem;right:.3rem;font-size:.75rem;background:var(--bot);border:1px solid var(--line);
border-radius:5px;padding:.05rem .45rem}
.bot table{border-collapse:collapse;display:block;overflow-x:auto;max-width:100%;margin:.4rem 0}
.bot th,.bot td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left}
.buttons{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.4rem}
.buttons button{border:1px solid var(--accent);background:var(--bot);color:var(--link);border-radius:6px;
padding:.2rem .7rem}.buttons button.primary{background:var(--accent);color:#fff}
.buttons button.danger{border-color:var(--danger);color:var(--danger)}
.bot.error{border:1px solid var(--danger);border-left-width:4px}.bot.error .title{font-weight:600;color:var(--danger)}
.tools{align-self:flex-start;max-width:min(46rem,92%);font-size:.88rem;color:var(--muted);min-width:0}
.tools details{border-left:3px solid var(--line);padding:.1rem .6rem;margin:.15rem 0}
.tools summary{cursor:pointer;color:var(--muted)}.tools pre{white-space:pre-wrap;overflow-wrap:anywhere;
background:var(--code);color:var(--fg);padding:.4rem;border-radius:6px;margin:.3rem 0;font-size:.85em}
.note{align-self:center;background:var(--note);color:var(--note-fg);border-radius:8px;padding:.3rem .8rem;
font-size:.9rem;max-width:92%}
.file a{color:var(--link)}.me .file a{color:#fff}.file img.preview{max-width:100%;max-height:320px;border-radius:6px}
#typing{color:var(--muted);font-size:.85rem;padding:0 1rem;min-height:1.3rem}
.turn-actions{align-self:flex-end;display:flex;gap:.4rem}.turn-actions button{font-size:.8rem;background:var(--bot);
border:1px solid var(--line);border-radius:6px;padding:.1rem .6rem;color:var(--link)}
#editing{flex-basis:100%;font-size:.85rem;color:var(--muted)}#editing:empty{display:none}
form{display:flex;gap:.5rem;padding:.6rem 1rem .8rem;border-top:1px solid var(--line);position:relative;
align-items:flex-end;flex-wrap:wrap}
#t{flex:1 1 10rem;min-width:0;resize:none;font:inherit;padding:.5rem;border-radius:8px;border:1px solid var(--line);
background:var(--bot);color:inherit}#t::placeholder{color:var(--muted);opacity:1}
#send{padding:.55rem 1.1rem;border:0;border-radius:8px;background:var(--accent);color:#fff}
#stop{padding:.5rem .8rem;border:1px solid var(--danger);border-radius:8px;background:var(--bot);color:var(--danger)}
#stop[hidden]{display:none}
#attach{padding:.5rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--bot)}
#pending{flex-basis:100%;display:flex;gap:.4rem;flex-wrap:wrap;font-size:.85rem}#pending:empty{display:none}
#pending span{background:var(--code);border-radius:6px;padding:.1rem .5rem}
#cmds{position:absolute;bottom:100%;left:1rem;right:1rem;background:var(--bot);border:1px solid var(--line);
border-radius:8px;margin:0 0 .3rem;padding:.3rem;list-style:none;max-height:14rem;overflow-y:auto}
#cmds li{padding:.3rem .5rem;border-radius:6px;cursor:pointer}#cmds li[aria-selected=true]{background:var(--code)}
#cmds small{color:var(--muted);margin-left:.5rem}
body.drag main{outline:3px dashed var(--accent);outline-offset:-6px}
@media(max-width:700px){#menu{display:inline-block}nav{position:fixed;top:3rem;bottom:0;left:0;z-index:2;
width:min(18rem,85vw);display:none}body.side nav{display:block}.m,.tools{max-width:96%}}
`;

/**
 * The page for one browser: its settings (page token, access token, owner prefix of its session
 * ids, commands, upload cap) ride along as JSON the script reads. The tab's session id lives in
 * sessionStorage: a reload keeps the tab's conversation, and a new tab starts its own.
 */
export function chatPage(boot: PageBoot): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>boxbot</title><link rel="icon" type="image/svg+xml" href="chat/assets/favicon.svg">
<style>${STYLE}</style></head><body>
<header><button id="menu" class="plain" type="button" aria-expanded="false" aria-controls="side">Chats</button>
<h1>boxbot</h1><span id="state" role="status">connecting…</span>${whoLine(boot.IDENTITY)}
<button id="new" class="plain" type="button">New chat</button></header>
<div id="app"><nav id="side" aria-label="Conversations"><h2>Conversations</h2>
<input id="search" type="search" placeholder="Search chats" aria-label="Search your chats" maxlength="200">
<ul id="sessions"></ul></nav>
<main><div id="log" role="log" aria-live="polite" aria-label="Messages"></div><div id="typing"></div>
<form id="f" aria-label="Send a message"><ul id="cmds" role="listbox" aria-label="Commands" hidden></ul>
<div id="pending" aria-live="polite"></div><div id="editing" role="status"></div>
<input id="file" type="file" multiple hidden>
<button id="attach" type="button" aria-label="Attach files" title="Attach files (or drop them here)">+</button>
<label for="t" class="sr-only">Message</label>
<textarea id="t" rows="2" placeholder="Message boxbot (/ for commands)" autofocus
title="Enter sends, Shift+Enter starts a new line, / lists the commands"></textarea>
<button id="stop" type="button" hidden>Stop</button><button id="send" type="submit">Send</button>
</form></main></div>
<script id="boot" type="application/json">${inert(boot)}</script>
<script src="chat/assets/markdown-it.js"></script><script src="chat/assets/chat.js"></script>
</body></html>`;
}
