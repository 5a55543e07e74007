// The web chat page's behaviour, served as /chat/assets/chat.js (the page's CSP allows scripts
// from this server only). Plain browser JavaScript kept as a string so it ships with the build;
// it holds no backticks or template placeholders. It draws answers with markdown-it (raw HTML
// off, http(s) links only), keeps tool calls as collapsible entries, restores the stored history,
// reconnects across gateway restarts, lists the browser's chats, uploads files, presses buttons
// and suggests commands.

/** The page script. */
export const CLIENT_SCRIPT = String.raw`'use strict';
(function () {
  var boot = JSON.parse(document.getElementById('boot').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var log = $('log'), typing = $('typing'), state = $('state'), form = $('f'), input = $('t');
  var stopBtn = $('stop'), list = $('sessions'), cmds = $('cmds'), pendingBox = $('pending'), fileInput = $('file');
  var rid = function () {
    var a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return Array.from(a, function (b) { return b.toString(16).padStart(2, '0'); }).join('');
  };
  var newSession = function () { return boot.OWNER + '-' + rid(); };
  var session = sessionStorage.getItem('boxbot.session') || '';
  if (session.indexOf(boot.OWNER + '-') !== 0) session = newSession();
  sessionStorage.setItem('boxbot.session', session);

  // Markdown: markdown-it with raw HTML off; links only to http(s), opened in a new tab.
  var md = window.markdownit({ html: false, linkify: true, breaks: true });
  md.disable('image');
  md.validateLink = function (url) { return /^https?:\/\//i.test(String(url).trim()); };
  var linkOpen = md.renderer.rules.link_open || function (t, i, o, e, self) { return self.renderToken(t, i, o); };
  md.renderer.rules.link_open = function (tokens, i, o, e, self) {
    tokens[i].attrSet('target', '_blank');
    tokens[i].attrSet('rel', 'noopener noreferrer');
    return linkOpen(tokens, i, o, e, self);
  };

  var q = function (extra) {
    var p = new URLSearchParams(extra || {});
    if (boot.ACCESS) p.set('access', boot.ACCESS);
    var s = p.toString();
    return s ? '?' + s : '';
  };
  var api = function (path, init) {
    init = init || {};
    init.headers = Object.assign({ 'x-boxbot-token': boot.TOKEN }, init.headers || {});
    return fetch(path, init);
  };

  var nodes = new Map(), toolBlocks = new Map(), lastUser = null, typingTimer = 0;
  var scrollDown = function () { log.scrollTop = log.scrollHeight; };
  var add = function (el, after) {
    if (after && after.parentNode === log) after.after(el); else log.appendChild(el);
    scrollDown();
    return el;
  };

  function copyText(text, button) {
    var done = function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = 'Copy'; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else { fallbackCopy(text); done(); }
  }
  function fallbackCopy(text) {
    var ta = document.createElement('textarea');
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }

  function renderBot(n, text) {
    n.innerHTML = md.render(text || '');
    n.querySelectorAll('pre').forEach(function (pre) {
      var wrap = document.createElement('div');
      wrap.className = 'code';
      pre.replaceWith(wrap);
      wrap.appendChild(pre);
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'copy';
      b.textContent = 'Copy';
      b.setAttribute('aria-label', 'Copy code');
      b.onclick = function () { copyText(pre.textContent, b); };
      wrap.appendChild(b);
    });
  }
  function fileLink(f) {
    var p = document.createElement('p');
    p.className = 'file';
    var a = document.createElement('a');
    a.href = 'chat/files/' + encodeURIComponent(f.id) + q({ session: session });
    a.setAttribute('download', f.name);
    a.textContent = f.name + ' (' + Math.max(1, Math.round(f.size / 1024)) + ' KB)';
    // A raster image is shown as well as offered (the server previews only these types inline).
    if (/^image\/(png|jpeg|gif|webp)$/.test(f.mimeType || '')) {
      var img = document.createElement('img');
      img.src = 'chat/files/' + encodeURIComponent(f.id) + q({ session: session, inline: '1' });
      img.alt = f.name;
      img.className = 'preview';
      p.appendChild(img);
      p.appendChild(document.createElement('br'));
    }
    p.appendChild(a);
    return p;
  }
  function renderButtons(n, id, buttons) {
    var old = n.querySelector('.buttons');
    if (old) old.remove();
    if (!buttons || !buttons.length) return;
    var row = document.createElement('div');
    row.className = 'buttons';
    buttons.forEach(function (b) {
      var el = document.createElement('button');
      el.type = 'button';
      el.textContent = b.label;
      if (b.style) el.className = b.style;
      el.onclick = function () { press(id, b.id, el); };
      row.appendChild(el);
    });
    n.appendChild(row);
  }
  function showBot(ev) {
    var key = 'b' + ev.id, n = nodes.get(key);
    if (!n) {
      n = document.createElement('div');
      n.className = 'm bot';
      nodes.set(key, n);
      add(n);
    }
    if (ev.text !== undefined) n.dataset.text = ev.text;
    if (ev.file) n.dataset.file = JSON.stringify(ev.file);
    if (ev.for) n.dataset.for = ev.for;
    if (ev.error !== undefined) n.dataset.error = ev.error ? '1' : '';
    renderBot(n, n.dataset.text);
    if (n.dataset.file) n.appendChild(fileLink(JSON.parse(n.dataset.file)));
    if (ev.buttons !== undefined) n.dataset.buttons = JSON.stringify(ev.buttons);
    renderButtons(n, ev.id, n.dataset.buttons ? JSON.parse(n.dataset.buttons) : []);
    if (n.dataset.error) showError(n);
    else { n.classList.remove('error'); n.removeAttribute('role'); }
    refreshActions();
    scrollDown();
  }
  // A failed run's answer: marked as an error (the text names the provider and what failed), with
  // Retry, which sends the user's message it answers again (its files are not sent again).
  function showError(n) {
    n.classList.add('error');
    n.setAttribute('role', 'alert');
    var title = document.createElement('div');
    title.className = 'title';
    title.textContent = 'Model error';
    n.prepend(title);
    var asked = (n.dataset.for && nodes.get('u' + n.dataset.for)) || null;
    if (!asked) {
      var mine = Array.from(log.querySelectorAll('.me'));
      asked = mine[mine.length - 1] || null;
    }
    if (!asked || !asked.dataset.text) return;
    var row = document.createElement('div');
    row.className = 'buttons';
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'retry';
    b.textContent = 'Retry';
    b.setAttribute('aria-label', 'Retry: send your message again');
    b.onclick = function () { sendText(asked.dataset.text, asked.sentFiles || []); };
    row.appendChild(b);
    n.appendChild(row);
  }
  function showUser(id, text, files) {
    var key = 'u' + id;
    if (nodes.has(key)) return nodes.get(key);
    var n = document.createElement('div');
    n.className = 'm me';
    n.textContent = text;
    n.dataset.text = text;
    n.dataset.id = id;
    // Its files go with it again when it is edited, regenerated or retried.
    n.sentFiles = files || [];
    (files || []).forEach(function (f) { n.appendChild(fileLink(f)); });
    nodes.set(key, n);
    lastUser = add(n);
    refreshActions();
    return n;
  }
  // Edit and Regenerate, under the last turn: Edit puts your last message back in the box (Enter
  // sends it in its place, Escape cancels); Regenerate sends it again. Either replaces that turn
  // (your message and its answer) here and in the conversation's history; its files go with it.
  var editing = null;
  var editFiles = [];
  function lastTurn() {
    var mine = Array.from(log.querySelectorAll('.me'));
    var me = mine[mine.length - 1];
    // Only a message the server can name (ids of 8+ characters) and not a command.
    if (!me || (me.dataset.id || '').length < 8 || /^\//.test(me.dataset.text || '')) return null;
    return me;
  }
  function refreshActions() {
    log.querySelectorAll('.turn-actions').forEach(function (el) { el.remove(); });
    var me = lastTurn();
    if (!me) return;
    var row = document.createElement('div');
    row.className = 'turn-actions';
    row.setAttribute('role', 'toolbar');
    row.setAttribute('aria-label', 'Your last message');
    var edit = document.createElement('button');
    edit.type = 'button';
    edit.className = 'edit';
    edit.textContent = 'Edit';
    edit.setAttribute('aria-label', 'Edit your last message');
    edit.onclick = function () { startEdit(me); };
    row.appendChild(edit);
    var answered = Array.from(log.querySelectorAll('.bot')).some(function (b) {
      return b.dataset.for === me.dataset.id;
    });
    if (answered) {
      var again = document.createElement('button');
      again.type = 'button';
      again.className = 'regenerate';
      again.textContent = 'Regenerate';
      again.setAttribute('aria-label', 'Regenerate the answer to your last message');
      again.onclick = function () { sendText(me.dataset.text, me.sentFiles || [], me.dataset.id); };
      row.appendChild(again);
    }
    log.appendChild(row);
  }
  function startEdit(me) {
    editing = me.dataset.id;
    editFiles = me.sentFiles || [];
    input.value = me.dataset.text;
    var n = editFiles.length;
    var with_ = n ? ' (with its ' + (n === 1 ? 'file' : n + ' files') + ')' : '';
    $('editing').textContent = 'Editing your last message' + with_ + ': Enter sends it in its place, Escape cancels.';
    input.focus();
  }
  function stopEdit() {
    editing = null;
    editFiles = [];
    $('editing').textContent = '';
  }
  // The turn the user message 'of' started goes (its message, answers and tool entries): its replacement follows.
  function dropTurn(of) {
    var me = nodes.get('u' + of);
    if (me) { me.remove(); nodes.delete('u' + of); }
    log.querySelectorAll('.bot').forEach(function (b) {
      if (b.dataset.for === of) { b.remove(); nodes.forEach(function (v, k) { if (v === b) nodes.delete(k); }); }
    });
    var block = toolBlocks.get(of);
    if (block) { block.remove(); toolBlocks.delete(of); }
    refreshActions();
  }
  function showNote(text) {
    var n = document.createElement('div');
    n.className = 'note';
    n.setAttribute('role', 'note');
    n.textContent = text;
    add(n);
  }
  function newToolBlock(after) {
    var block = document.createElement('div');
    block.className = 'tools';
    block.setAttribute('aria-label', 'Tool calls');
    add(block, after);
    return block;
  }
  function toolBlock(forId) {
    var key = forId || '';
    var block = toolBlocks.get(key);
    if (block) return block;
    block = newToolBlock(forId ? nodes.get('u' + forId) : null);
    toolBlocks.set(key, block);
    return block;
  }
  function toolEntry(block, summaryText, bodyText) {
    var d = document.createElement('details');
    var s = document.createElement('summary');
    s.textContent = summaryText;
    d.appendChild(s);
    var pre = document.createElement('pre');
    pre.textContent = bodyText || 'running…';
    d.appendChild(pre);
    block.appendChild(d);
    scrollDown();
    return d;
  }
  // A tool's start opens an entry with its input; its end (the same call id, else the oldest open
  // entry) adds how it ended and the start of its output. Both arrive redacted and capped, and are
  // untrusted (a web page's words): set as text, never as markup.
  function activity(ev) {
    var block = toolBlock(ev.for);
    if (ev.kind === 'tool-start') {
      var input = ev.detail !== undefined ? 'input: ' + ev.detail + '\n\n' : '';
      var entry = toolEntry(block, ev.text, input + 'running…');
      entry.dataset.input = input;
      if (ev.call) entry.dataset.call = ev.call;
      return;
    }
    var open = Array.from(block.querySelectorAll('details')).filter(function (d) { return !d.dataset.done; });
    var d = open.filter(function (e) { return ev.call && e.dataset.call === ev.call; })[0] || open[0];
    if (!d) return;
    d.dataset.done = '1';
    var pre = d.querySelector('pre');
    pre.textContent = (d.dataset.input || '') + (ev.text || 'done');
    if (ev.detail !== undefined) {
      pre.textContent += '\n\noutput: ' + ev.detail;
      pre.className = 'untrusted';
      pre.title = 'What the tool returned, shown as plain text';
    }
  }
  function working(on) {
    clearTimeout(typingTimer);
    typing.textContent = on ? 'boxbot is working…' : '';
    stopBtn.hidden = !on;
    if (on) typingTimer = setTimeout(function () { working(false); }, 4000);
  }

  // User messages whose whole turn was drawn from the stored history: their live events are skipped.
  var stored = new Set();
  // Draws one event; the recorded history replays through here too, so it looks as it did live.
  function draw(ev) {
    switch (ev.type) {
      case 'user': showUser(ev.id, ev.text, ev.files); return;
      case 'activity': activity(ev); return;
      case 'note': showNote(ev.text); refreshActions(); return;
      case 'replace': dropTurn(ev.of); return;
      case 'message': case 'edit': showBot(ev); return;
    }
  }
  function onEvent(ev) {
    if (ev.for && stored.has(ev.for)) return;
    switch (ev.type) {
      case 'typing': working(true); return;
      case 'activity': working(true); break;
      case 'commands': boot.commands = ev.commands; return;
      case 'message': case 'edit': typing.textContent = ''; listSoon(); break;
    }
    draw(ev);
  }

  function clearLog() {
    working(false);
    stored.clear();
    nodes.clear();
    toolBlocks.clear();
    lastUser = null;
    log.textContent = '';
    stopEdit();
  }
  function drawHistory(entries) {
    var turn = 0;
    entries.forEach(function (e) {
      if (e.role === 'user') {
        if (e.id) stored.add(e.id);
        showUser(e.id || 'h' + (++turn), e.text);
        return;
      }
      if (e.role === 'bot') {
        var n = document.createElement('div');
        n.className = 'm bot';
        renderBot(n, e.text);
        add(n);
        return;
      }
      var block = newToolBlock();
      e.tools.forEach(function (t) {
        var body = 'input: ' + t.input + (t.result !== undefined ? '\n\noutput: ' + t.result : '');
        toolEntry(block, t.name + (t.isError ? ' (failed)' : ''), body);
      });
    });
  }

  // The event stream: a tab open across a gateway restart gets a fresh page token and the stored
  // history, then follows the new process's events, instead of retrying with a stale token forever.
  var es = null, generation = 0, retryTimer = 0, after = 0;
  async function refreshBoot() {
    var r = await fetch('chat/boot' + q(), { cache: 'no-store' });
    if (!r.ok) throw new Error('boot ' + r.status);
    var b = await r.json();
    boot.TOKEN = b.TOKEN;
    boot.commands = b.commands;
    boot.maxUploadBytes = b.maxUploadBytes;
    boot.history = b.history;
  }
  async function connect() {
    var gen = ++generation;
    clearTimeout(retryTimer);
    if (es) { es.close(); es = null; }
    state.textContent = 'connecting…';
    try {
      if (boot.history) {
        var r = await api('chat/history' + q({ session: session }));
        if (r.status === 401) { await refreshBoot(); r = await api('chat/history' + q({ session: session })); }
        if (!r.ok) throw new Error('history ' + r.status);
        var h = await r.json();
        if (gen !== generation) return;
        clearLog();
        // Recorded events (then the stream goes on after the last of them), or an older chat's stored turns.
        if (h.events) { h.events.forEach(draw); after = h.seq; } else { drawHistory(h.entries); after = 0; }
        if (h.note) showNote(h.note);
      } else { clearLog(); after = 0; } // nothing awaited since gen was taken: still current
    } catch (err) {
      if (gen !== generation) return;
      state.textContent = 'reconnecting…';
      retryTimer = setTimeout(connect, 1500);
      return;
    }
    if (gen !== generation) return;
    es = new EventSource('chat/events' + q({ session: session, token: boot.TOKEN, after: String(after) }));
    es.onopen = function () { state.textContent = 'connected'; };
    es.onerror = function () {
      state.textContent = 'reconnecting…';
      // CLOSED: the server refused the stream (a new process with a new token); start over.
      if (es && es.readyState === EventSource.CLOSED && gen === generation) {
        retryTimer = setTimeout(function () {
          refreshBoot().then(connect, function () { retryTimer = setTimeout(connect, 1500); });
        }, 500);
      }
    };
    es.onmessage = function (e) { onEvent(JSON.parse(e.data)); };
    loadSessions();
  }

  // The conversation list: this browser's stored chats, the current one always shown; read again
  // shortly after answers arrive (the final one comes after the history is saved).
  var listTimer = 0;
  function listSoon() {
    clearTimeout(listTimer);
    listTimer = setTimeout(loadSessions, 1000);
  }
  async function loadSessions() {
    var items = [];
    try {
      var r = await api('chat/sessions' + q());
      if (r.ok) items = (await r.json()).sessions;
    } catch (e) { /* the list is a convenience; the chat works without it */ }
    if (searchBox.value.trim()) return; // the search's results stay until the box is emptied
    var current = items.some(function (s) { return s.session === session; });
    if (!current) items.unshift({ session: session, title: 'This chat' });
    list.textContent = '';
    items.forEach(function (s) {
      var li = document.createElement('li');
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = s.title;
      b.title = s.title;
      if (s.session === session) b.setAttribute('aria-current', 'true');
      b.onclick = function () { switchTo(s.session); };
      li.appendChild(b);
      list.appendChild(li);
    });
  }
  // Search: typing in the box lists the chats whose messages match, each with an excerpt; empty, the list again.
  var searchBox = $('search'), searchTimer = 0;
  async function runSearch() {
    var text = searchBox.value.trim();
    if (!text) { loadSessions(); return; }
    var hits = [];
    try {
      var r = await api('chat/search' + q({ q: text }));
      if (r.ok) hits = (await r.json()).hits;
    } catch (e) { /* shown as no match */ }
    if (searchBox.value.trim() !== text) return;
    list.textContent = '';
    if (!hits.length) {
      var none = document.createElement('li');
      none.className = 'none';
      none.textContent = 'No chat matches.';
      list.appendChild(none);
    }
    hits.forEach(function (h) {
      var li = document.createElement('li');
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = h.title;
      var small = document.createElement('small');
      small.textContent = h.excerpt;
      b.appendChild(small);
      b.onclick = function () { searchBox.value = ''; switchTo(h.session); };
      li.appendChild(b);
      list.appendChild(li);
    });
  }
  searchBox.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 250);
  });
  function switchTo(id) {
    session = id;
    sessionStorage.setItem('boxbot.session', session);
    pending = [];
    drawPending();
    document.body.classList.remove('side');
    $('menu').setAttribute('aria-expanded', 'false');
    connect();
  }
  $('new').onclick = function () { switchTo(newSession()); };
  $('menu').onclick = function () {
    var open = document.body.classList.toggle('side');
    $('menu').setAttribute('aria-expanded', String(open));
  };

  // Posting, with a fresh token after a restart and a few retries while the gateway is away.
  async function post(path, body) {
    for (var i = 0; i < 4; i++) {
      try {
        var init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
        var r = await api(path + q(), init);
        if (r.status === 401 && i === 0) { await refreshBoot(); continue; }
        return r;
      } catch (e) { await new Promise(function (res) { setTimeout(res, 500 * (i + 1)); }); }
    }
    return null;
  }
  async function failed(r) {
    if (!r) return 'the gateway is unreachable';
    var j = await r.json().catch(function () { return {}; });
    return j.error || ('HTTP ' + r.status);
  }
  async function press(messageId, buttonId, el) {
    el.disabled = true;
    var r = await post('chat/press', { session: session, messageId: messageId, button: buttonId });
    el.disabled = false;
    if (!r || !r.ok) showNote('Not sent: ' + (await failed(r)));
  }

  // Files: picked or dropped, uploaded at once (each checked against the cap first), sent with the next message.
  var pending = [];
  function drawPending() {
    pendingBox.textContent = '';
    pending.forEach(function (f) {
      var s = document.createElement('span');
      s.textContent = f.name;
      pendingBox.appendChild(s);
    });
  }
  var limitText = function () { return Math.round(boot.maxUploadBytes / 1048576 * 10) / 10 + ' MB'; };
  async function upload(files) {
    if (!boot.maxUploadBytes) { showNote('This chat takes no files.'); return; }
    var total = pending.reduce(function (n, f) { return n + f.size; }, 0);
    for (var i = 0; i < files.length; i++) {
      var file = files[i];
      if (file.size > boot.maxUploadBytes) {
        showNote('Not attached: ' + file.name + ' is larger than the limit of ' + limitText() + ' per file.');
        continue;
      }
      if (total + file.size > boot.maxUploadBytes) {
        showNote('Not attached: ' + file.name + ' would pass the limit of ' + limitText() + ' per message.');
        continue;
      }
      var r = null;
      for (var k = 0; k < 2; k++) {
        var type = file.type || 'application/octet-stream';
        r = await api('chat/upload' + q({ session: session, name: file.name }), {
          method: 'POST', headers: { 'content-type': type }, body: file,
        }).catch(function () { return null; });
        if (r && r.status === 401 && k === 0) { await refreshBoot(); continue; }
        break;
      }
      if (!r || !r.ok) { showNote('Not attached: ' + file.name + ': ' + (await failed(r))); continue; }
      var meta = await r.json();
      total += meta.size;
      pending.push(meta);
    }
    drawPending();
  }
  $('attach').onclick = function () { fileInput.click(); };
  fileInput.onchange = function () { upload(Array.from(fileInput.files)); fileInput.value = ''; };
  document.addEventListener('dragover', function (e) { e.preventDefault(); document.body.classList.add('drag'); });
  document.addEventListener('dragleave', function (e) {
    if (!e.relatedTarget) document.body.classList.remove('drag');
  });
  document.addEventListener('drop', function (e) {
    e.preventDefault();
    document.body.classList.remove('drag');
    if (e.dataTransfer && e.dataTransfer.files.length) upload(Array.from(e.dataTransfer.files));
  });

  // Commands: typing "/" lists the bot's commands; arrows move, Tab or Enter takes one.
  var selected = 0, shown = [];
  function drawCommands() {
    var v = input.value;
    var m = /^\/(\w*)$/.exec(v);
    shown = m ? boot.commands.filter(function (c) { return c.name.indexOf(m[1].toLowerCase()) === 0; }) : [];
    cmds.textContent = '';
    cmds.hidden = !shown.length;
    input.setAttribute('aria-expanded', String(!cmds.hidden));
    if (selected >= shown.length) selected = 0;
    shown.forEach(function (c, i) {
      var li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.id = 'cmd-' + c.name;
      li.setAttribute('aria-selected', String(i === selected));
      li.textContent = '/' + c.name + (c.argument ? ' [' + c.argument.name + ']' : '');
      var small = document.createElement('small');
      small.textContent = c.description;
      li.appendChild(small);
      li.onmousedown = function (e) { e.preventDefault(); take(c); };
      cmds.appendChild(li);
    });
    if (shown.length) input.setAttribute('aria-activedescendant', 'cmd-' + shown[selected].name);
    else input.removeAttribute('aria-activedescendant');
  }
  function take(c) {
    input.value = '/' + c.name + (c.argument ? ' ' : '');
    drawCommands();
    input.focus();
  }
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-controls', 'cmds');
  input.setAttribute('aria-autocomplete', 'list');
  input.addEventListener('input', drawCommands);
  input.addEventListener('keydown', function (e) {
    if (shown.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        selected = (selected + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
        drawCommands();
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && input.value !== '/' + shown[selected].name)) {
        e.preventDefault();
        take(shown[selected]);
        return;
      }
      if (e.key === 'Escape') { shown = []; cmds.hidden = true; return; }
    }
    if (e.key === 'Escape' && editing) { stopEdit(); input.value = ''; return; }
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });

  async function sendText(text, files, replaces) {
    var id = rid();
    showUser(id, text, files);
    working(true);
    var ids = files.map(function (f) { return f.id; });
    var body = { session: session, text: text, id: id, attachments: ids };
    if (replaces) body.replaces = replaces;
    var r = await post('chat/messages', body);
    if (r && r.ok) {
      // \/web logout ended this browser's session: the page that follows says how to sign in again.
      if (r.status === 200) { location.reload(); return; }
      loadSessions();
      return;
    }
    working(false);
    // A refusal the server noted in the chat itself arrives as a note event: not drawn twice.
    var why = r && r.status === 503 ? await r.clone().json().catch(function () { return {}; }) : {};
    if (!why.noted) showNote('Not sent: ' + (await failed(r)));
  }
  form.onsubmit = function (e) {
    e.preventDefault();
    var text = input.value.trim();
    var files = editing ? editFiles.concat(pending) : pending;
    if (!text && !files.length) return;
    pending = [];
    drawPending();
    input.value = '';
    drawCommands();
    var replaces = editing;
    stopEdit();
    sendText(text, files, replaces);
  };
  // Stop is the /stop command, so it works on every path the command does.
  stopBtn.onclick = function () { post('chat/messages', { session: session, text: '/stop', id: rid() }); };

  connect();
})();
`;
