// The web chat page: one self-contained HTML document (no external assets). Answers are
// Markdown rendered by a small escaping renderer: text is escaped before any markup is added,
// and only http(s) links become anchors.

const json = (v: string) => JSON.stringify(v).replace(/</g, '\\u003c');

/**
 * The page, carrying the per-process API token (and the access token when one is needed) and the
 * browser's session owner prefix. The tab part of the session id lives in sessionStorage: a
 * reload keeps the tab's conversation, and a new tab starts its own.
 */
export function chatPage(apiToken: string, access: string, owner: string): string {
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>boxbot</title>
<style>
:root{color-scheme:light dark;--bg:#f7f7f8;--fg:#1d1d1f;--me:#2563eb;--bot:#fff;--line:#ddd}
@media(prefers-color-scheme:dark){:root{--bg:#18181b;--fg:#e4e4e7;--bot:#27272a;--line:#3f3f46}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg);` +
    `display:flex;flex-direction:column;height:100vh}
header{padding:.6rem 1rem;border-bottom:1px solid var(--line);display:flex;gap:1rem;align-items:center}
header b{font-size:1.05rem}header span{opacity:.65;font-size:.85rem;flex:1}
header button{background:none;border:1px solid var(--line);color:inherit;border-radius:6px;` +
    `padding:.2rem .6rem;cursor:pointer}
#log{flex:1;overflow-y:auto;padding:1rem;display:flex;flex-direction:column;gap:.6rem}
.m{max-width:min(46rem,90%);padding:.5rem .8rem;border-radius:10px;white-space:normal;overflow-wrap:anywhere}
.me{align-self:flex-end;background:var(--me);color:#fff;white-space:pre-wrap}.bot{align-self:flex-start;` +
    `background:var(--bot);border:1px solid var(--line)}
.bot pre{background:rgba(127,127,127,.12);padding:.5rem;border-radius:6px;overflow-x:auto}` +
    `.bot code{font-family:ui-monospace,monospace;font-size:.9em}
.bot p{margin:.3rem 0}#typing{opacity:.6;font-size:.85rem;padding:0 1rem;height:1.3rem}
form{display:flex;gap:.5rem;padding:.8rem 1rem;border-top:1px solid var(--line)}
textarea{flex:1;resize:none;font:inherit;padding:.5rem;border-radius:8px;border:1px solid var(--line);` +
    `background:var(--bot);color:inherit}
form button{padding:0 1.2rem;border:0;border-radius:8px;background:var(--me);color:#fff;font:inherit;cursor:pointer}
</style></head><body>
<header><b>boxbot</b><span id="state">connecting…</span><button id="new" title="Start a new conversation">` +
    `New chat</button></header>
<div id="log" aria-live="polite"></div><div id="typing"></div>
<form id="f"><textarea id="t" rows="2" placeholder="Message boxbot (Enter to send,` +
    ` Shift+Enter for a new line)" autofocus></textarea><button>Send</button></form>
<script>
const TOKEN=${json(apiToken)},ACCESS=${json(access)},OWNER=${json(owner)};
const rid=()=>{const a=new Uint8Array(12);crypto.getRandomValues(a);return Array.from(a,b=>` +
    `b.toString(16).padStart(2,'0')).join('')};
const sid=()=>OWNER+'-'+rid();
let session=sessionStorage.getItem('boxbot.session')||'';
if(!session.startsWith(OWNER+'-'))session=sid();sessionStorage.setItem('boxbot.session',session);
const log=document.getElementById('log'),typing=document.getElementById('typing'),
state=document.getElementById('state');
const nodes=new Map();let typingTimer;
const esc=s=>s.replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/>/g,'&gt;').replace(/"/g,'&quot;');
function inline(s){return s.replace(/\`([^\`]+)\`/g,'<code>$1</code>')` +
    `.replace(/\\*\\*([^*]+)\\*\\*/g,'<b>$1</b>').replace(/(^|[^*])\\*([^*\\n]+)\\*/g,'$1<i>$2</i>')` +
    `.replace(/\\[([^\\]]+)\\]\\((https?:\\/\\/[^\\s)]+)\\)/g,` +
    `'<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>')}
function md(src){const out=[];const parts=src.split(/\`\`\`/);parts.forEach((p,i)=>` +
    `{if(i%2){const nl=p.indexOf('\\n');out.push('<pre><code>'+esc(nl<0?p:p.slice(nl+1))+'</code></pre>')}` +
    `else{out.push(esc(p).split(/\\n{2,}/)` +
    `.map(b=>b.trim()?'<p>'+inline(b).replace(/\\n/g,'<br>')+'</p>':'').join(''))}});return out.join('')}
function show(id,text,who){let n=nodes.get(id);if(!n){n=document.createElement('div');n.className='m '+who;` +
    `log.appendChild(n);if(id)nodes.set(id,n)}
if(who==='bot')n.innerHTML=md(text);else n.textContent=text;log.scrollTop=log.scrollHeight}
let es;function connect(){if(es)es.close();nodes.clear();log.textContent='';
es=new EventSource('chat/events?session='+session+'&token='+encodeURIComponent(TOKEN)` +
    `+(ACCESS?'&access='+encodeURIComponent(ACCESS):''));
es.onopen=()=>state.textContent='connected';es.onerror=()=>state.textContent='reconnecting…';
es.onmessage=e=>{const ev=JSON.parse(e.data);if(ev.type==='typing'){typing.textContent='boxbot is working…';` +
    `clearTimeout(typingTimer);typingTimer=setTimeout(()=>typing.textContent='',4000);return}
if(ev.type==='user'){show('u'+ev.id,ev.text,'me');return}typing.textContent='';show('b'+ev.id,ev.text,'bot')}}
connect();
document.getElementById('new').onclick=()=>{session=sid();sessionStorage.setItem('boxbot.session',session);connect()};
const f=document.getElementById('f'),t=document.getElementById('t');
t.addEventListener('keydown',e=>{if(e.key==='Enter'&&!e.shiftKey){e.preventDefault();f.requestSubmit()}});
f.onsubmit=async e=>{e.preventDefault();const text=t.value.trim();if(!text)return;t.value='';const id=rid();` +
    `show('u'+id,text,'me');
for(let i=0;i<3;i++){try{const r=await fetch('chat/messages'+(ACCESS?'?access='+encodeURIComponent(ACCESS):''),` +
    `{method:'POST',headers:{'content-type':'application/json','x-boxbot-token':TOKEN},` +
    `body:JSON.stringify({session,text,id})});
if(r.ok)return;const j=await r.json().catch(()=>({}));show('u'+id+'e','Not sent: '+(j.error||r.status),'bot');` +
    `return}catch{await new Promise(r=>setTimeout(r,500*(i+1)))}}
show('u'+id+'e','Not sent: the gateway is unreachable','bot')};
</script></body></html>`
  );
}
