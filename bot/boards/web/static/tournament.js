"use strict";
// The live standings of a tournament: the state from /api/v1/tournaments/{id}, fetched again on
// each event of its stream. Everything is written with textContent: no data becomes markup.
(() => {
  const id = location.pathname.split("/").pop();
  const $ = (sel) => document.getElementById(sel);
  const el = (tag, text) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  const gameLink = (game) => {
    if (!game) return el("span", "");
    const a = el("a", "#" + game);
    a.href = "/play/" + game;
    return a;
  };
  const names = {};
  const render = (t) => {
    document.title = "Tournament #" + t.id;
    $("title").textContent = "Tournament #" + t.id + " · " + t.system + " · " + t.variant + " · " + t.control;
    let summary = t.state + " · " + t.players + "/" + t.max_players + " players";
    if (t.state === "created") summary += " · starts " + new Date(t.starts_at).toLocaleString();
    if (t.rounds) summary += " · round " + t.round + " of " + t.rounds;
    if (t.arena) summary += " · " + Math.ceil(t.arena.seconds_left / 60) + " min left";
    if (t.cancelled) summary += " · called off";
    $("summary").textContent = summary;
    const arena = t.system === "arena";
    $("score-head").textContent = arena ? "Points" : "Score";
    $("tb-head").textContent = arena ? "Streak" : "Buchholz / SB";
    const body = $("standings").tBodies[0];
    body.replaceChildren();
    for (const s of t.standings || []) {
      names[s.player] = s.name;
      const tr = el("tr");
      tr.append(el("td", s.rank), el("td", s.name + (s.program ? " (program)" : "")),
        el("td", arena ? s.points : s.score),
        el("td", arena ? (s.fire ? "🔥" : "") : s.buchholz + " / " + s.sonneborn_berger));
      const g = el("td");
      g.append(gameLink(s.game));
      tr.append(g);
      body.append(tr);
    }
    const rounds = $("rounds");
    rounds.replaceChildren();
    const byRound = new Map();
    for (const p of t.pairings || []) {
      if (!byRound.has(p.round)) byRound.set(p.round, []);
      byRound.get(p.round).push(p);
    }
    for (const [round, ps] of [...byRound.entries()].sort((a, b) => a[0] - b[0])) {
      const h = el("h3", (arena ? "Wave " : "Round ") + round);
      const ul = el("ul");
      for (const p of ps) {
        const li = el("li");
        const who = (u) => names[u] || ("#" + u);
        li.append(el("span", p.bye ? who(p.white) + " — bye" : who(p.white) + " – " + who(p.black) + " " + (p.result || "…") + " "));
        if (p.game) li.append(gameLink(p.game));
        ul.append(li);
      }
      rounds.append(h, ul);
    }
  };
  const load = async () => {
    try {
      const r = await fetch("/api/v1/tournaments/" + id, { credentials: "same-origin" });
      if (!r.ok) {
        const e = await r.json().catch(() => ({}));
        $("status").textContent = (e.error && e.error.message) || ("Error " + r.status);
        return;
      }
      $("status").textContent = "";
      render(await r.json());
    } catch (err) {
      $("status").textContent = "The server cannot be reached.";
    }
  };
  const es = new EventSource("/api/v1/tournaments/" + id + "/events");
  es.addEventListener("board", load);
  es.onopen = () => { $("live").textContent = "live"; };
  es.onerror = () => { $("live").textContent = "offline"; };
  load();
})();
