"use strict";
// live.js gives the pages of one browser one stream of live updates, whatever the number of tabs
// (a browser opens at most six connections to a host, so a stream per tab leaves the seventh
// blank). The stream is GET /api/v1/events (docs/web-api.md), which follows several games and
// tournaments, each from its own number. One hub holds it for the pages of the origin:
//
//   - a SharedWorker running this same file, the pages talking to it through their ports;
//   - where there is none (Chrome on Android), the tab that holds the Web Lock "qb-live-leader",
//     the others talking to it on the BroadcastChannel "qb-live"; when it closes, another tab
//     takes the lock, and each page follows again from the numbers it has;
//   - without either, each page runs a hub of its own.
//
// A page follows with QBLive.follow(kind, id, last, on): kind "game" or "tournament", last the
// number of the last event it has (null: none, a new follow). on.record(text), on.reset(data),
// on.open(), on.error() and on.refused(data) are called as the stream says; follow returns a
// function that ends the follow. The hub opens the stream anew, with the number each follow has
// reached, when what its pages follow changes or the connection breaks. Each tab holds a Web
// Lock of its own while it is open, so the hub hears of a tab that went away without a word.

// qbLiveHub makes the hub: it keeps what the pages follow and the one stream; send(client, msg)
// passes a message to a page.
function qbLiveHub(send) {
  const follows = new Map(); // "game:7" -> { kind, id, last (null: none), clients: Set }
  let es = null, timer = null, pause = 2000, up = false;
  const keyOf = (kind, id) => kind + ":" + id;
  const tell = (f, msg) => { for (const c of f.clients) send(c, Object.assign({ key: keyOf(f.kind, f.id) }, msg)); };
  const tellAll = (msg) => { for (const f of follows.values()) tell(f, msg); };

  // reopen opens the stream anew soon (after wait ms), once for what several pages ask at once.
  function reopen(wait) {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(open, wait);
  }
  function open() {
    timer = null;
    if (es) { es.close(); es = null; }
    if (!follows.size) return;
    const q = [];
    for (const f of follows.values()) q.push(f.kind + "=" + f.id + (f.last === null ? "" : ":" + f.last));
    const s = new EventSource("/api/v1/events?" + q.join("&"));
    es = s;
    const on = (name, fn) => s.addEventListener(name, (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (err) { return; }
      fn(d, ev.data);
    });
    on("record", (d, text) => {
      const f = follows.get(keyOf("game", d.board));
      if (!f) return;
      f.last = Math.max(f.last || 0, d.id || 0);
      tell(f, { type: "record", text });
    });
    on("tournament", (d, text) => {
      const f = follows.get(keyOf("tournament", d.tournament));
      if (!f) return;
      f.last = Math.max(f.last || 0, d.id || 0);
      tell(f, { type: "record", text });
    });
    const reset = (kind) => (d) => {
      const f = follows.get(keyOf(kind, d.id));
      if (!f) return;
      f.last = d.last;
      tell(f, { type: "reset", data: d });
    };
    // Where the stream goes on from for each follow: a new follow learns its number here, so
    // that a stream opened anew misses nothing after it.
    on("following", (d) => {
      const f = follows.get(d.game ? keyOf("game", d.game) : keyOf("tournament", d.tournament));
      if (f && f.last === null) f.last = d.last;
    });
    on("reset", reset("game"));
    on("tournament_reset", reset("tournament"));
    // A game or tournament the stream does not follow (refused), or no more (ended, its grant
    // ended): its pages hear of it, and follow again later if they will.
    const gone = (d) => {
      const kind = d.game ? "game" : "tournament";
      const f = follows.get(keyOf(kind, d.game || d.tournament));
      if (!f) return;
      follows.delete(keyOf(f.kind, f.id));
      tell(f, { type: "refused", data: d });
    };
    on("refused", gone);
    on("ended", gone);
    s.onopen = () => {
      up = true;
      pause = 2000;
      tellAll({ type: "open" });
    };
    // A broken or refused stream is opened anew, from the numbers reached, after a pause that
    // grows while it fails.
    s.onerror = () => {
      if (es !== s) return;
      s.close();
      es = null;
      if (up) tellAll({ type: "error" });
      up = false;
      reopen(pause);
      pause = Math.min(pause * 2, 30000);
    };
  }

  return {
    // follow adds a page's follow; a page that comes with an older number than the stream
    // has reached reads the state once (reset), as it missed what came between.
    follow(client, kind, id, last) {
      const key = keyOf(kind, id);
      let f = follows.get(key);
      if (!f) {
        f = { kind, id, last, clients: new Set([client]) };
        follows.set(key, f);
        reopen(20);
        return;
      }
      f.clients.add(client);
      if (f.last !== null && (last === null || last < f.last)) {
        send(client, { key, type: "reset", data: { id, last: f.last } });
      } else if (f.last === null && last !== null) {
        f.last = last;
      }
      if (up) send(client, { key, type: "open" });
    },
    unfollow(client, kind, id) {
      const key = keyOf(kind, id), f = follows.get(key);
      if (!f || !f.clients.delete(client) || f.clients.size) return;
      follows.delete(key);
      reopen(20);
    },
    drop(client) {
      for (const f of [...follows.values()]) this.unfollow(client, f.kind, f.id);
    },
  };
}

if (typeof window === "undefined") {
  // The shared worker: one hub for the ports of every page of the origin.
  const ports = new Map();
  const hub = qbLiveHub((client, msg) => { const p = ports.get(client); if (p) p.postMessage(msg); });
  self.onconnect = (ev) => {
    const port = ev.ports[0];
    let client = null;
    port.onmessage = (m) => {
      const d = m.data || {};
      if (d.op === "hello") {
        client = d.client;
        ports.set(client, port);
        // The tab holds its lock while it is open: the lock comes here when it has gone.
        if (self.navigator && navigator.locks) {
          navigator.locks.request("qb-live-tab-" + client, () => { hub.drop(client); ports.delete(client); });
        }
      } else if (client !== null && d.op === "follow") {
        hub.follow(client, d.kind, d.id, d.last);
      } else if (client !== null && d.op === "unfollow") {
        hub.unfollow(client, d.kind, d.id);
      } else if (client !== null && d.op === "bye") {
        hub.drop(client);
        ports.delete(client);
      }
    };
    port.start();
  };
} else {
  window.QBLive = (() => {
    const script = document.currentScript ? document.currentScript.src : "/static/live.js";
    const client = Math.random().toString(36).slice(2) + Date.now().toString(36);
    const mine = new Map(); // key -> { kind, id, last, on }
    const locks = navigator.locks;
    // held resolves once the tab holds its own lock, which it keeps while it is open.
    const held = locks ? new Promise((resolve) => {
      locks.request("qb-live-tab-" + client, () => { resolve(); return new Promise(() => {}); });
    }) : Promise.resolve();

    // receive hands a message of the hub to the page's follow it names.
    function receive(msg) {
      const f = mine.get(msg.key);
      if (!f) return;
      switch (msg.type) {
        case "record":
          try { f.last = Math.max(f.last || 0, JSON.parse(msg.text).id || 0); } catch (err) { /* passed on as it is */ }
          if (f.on.record) f.on.record(msg.text);
          break;
        case "reset":
          f.last = msg.data.last;
          if (f.on.reset) f.on.reset(msg.data);
          break;
        case "open":
          if (f.on.open) f.on.open();
          break;
        case "error":
          if (f.on.error) f.on.error();
          break;
        case "refused":
          mine.delete(msg.key);
          if (f.on.refused) f.on.refused(msg.data);
          break;
      }
    }

    // post sends an operation to the hub, wherever it runs.
    let post;
    if (typeof SharedWorker === "function") {
      const worker = new SharedWorker(script, { name: "qb-live" });
      worker.port.onmessage = (m) => receive(m.data);
      worker.port.start();
      const ready = held.then(() => worker.port.postMessage({ op: "hello", client }));
      post = (op) => ready.then(() => worker.port.postMessage(op));
      addEventListener("pagehide", () => worker.port.postMessage({ op: "bye" }));
    } else if (locks && typeof BroadcastChannel === "function") {
      const ch = new BroadcastChannel("qb-live");
      let hub = null; // the hub, while this tab leads
      const watched = new Set(); // the tabs whose going away the hub waits for
      const toHub = (op, from) => {
        if (op.op === "follow") hub.follow(from, op.kind, op.id, op.last);
        else if (op.op === "unfollow") hub.unfollow(from, op.kind, op.id);
      };
      ch.onmessage = (m) => {
        const d = m.data || {};
        if (d.to === client) receive(d.msg);
        else if (d.op === "leader") {
          // A new hub: it hears again what this page follows, from the numbers reached.
          for (const f of mine.values()) ch.postMessage({ op: "follow", from: client, kind: f.kind, id: f.id, last: f.last });
        } else if (hub && d.from && d.op) {
          toHub(d, d.from);
          if (!watched.has(d.from)) {
            watched.add(d.from);
            locks.request("qb-live-tab-" + d.from, () => { watched.delete(d.from); if (hub) hub.drop(d.from); });
          }
        }
      };
      held.then(() => locks.request("qb-live-leader", () => {
        hub = qbLiveHub((to, msg) => (to === client ? receive(msg) : ch.postMessage({ to, msg })));
        for (const f of mine.values()) hub.follow(client, f.kind, f.id, f.last);
        ch.postMessage({ op: "leader" });
        return new Promise(() => {});
      }));
      post = (op) => held.then(() => (hub ? toHub(op, client) : ch.postMessage(Object.assign({ from: client }, op))));
    } else {
      const hub = qbLiveHub((to, msg) => receive(msg));
      post = (op) => Promise.resolve(toLocal(hub, op));
    }
    function toLocal(hub, op) {
      if (op.op === "follow") hub.follow(client, op.kind, op.id, op.last);
      else if (op.op === "unfollow") hub.unfollow(client, op.kind, op.id);
    }

    return {
      follow(kind, id, last, on) {
        const key = kind + ":" + id;
        mine.set(key, { kind, id, last, on });
        post({ op: "follow", kind, id, last });
        return () => {
          if (mine.get(key) === undefined) return;
          mine.delete(key);
          post({ op: "unfollow", kind, id });
        };
      },
    };
  })();
}
