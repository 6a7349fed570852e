"use strict";
// The live standings of a tournament: the state from /api/v1/tournaments/{id}, fetched again on
// each event of its stream (the tournament's numbered record of events). Its words are the catalogue's (words.js, in the viewer's language:
// their profile's, or the browser's for a visitor), the system, game and clock named by the
// server in that language, the players by their public names. Everything is written with
// textContent: no data becomes markup.
(() => {
  const { t, api } = QB;
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
  const render = (tn) => {
    const heading = t("tn.title", { id: tn.id });
    document.title = heading;
    $("title").textContent = [heading, tn.system_title || tn.system, tn.variant_title || tn.variant,
      tn.control_title || tn.control].join(" · ");
    const parts = [t("tn.state." + tn.state), t("tn.players", { n: tn.players, max: tn.max_players })];
    if (tn.state === "created") parts.push(t("tn.starts", { time: new Date(tn.starts_at).toLocaleString(QB.lang) }));
    if (tn.rounds) parts.push(t("tn.round", { round: tn.round, rounds: tn.rounds }));
    if (tn.arena) parts.push(t("tn.left", { min: Math.ceil(tn.arena.seconds_left / 60) }));
    if (tn.cancelled) parts.push(t("tn.cancelled"));
    $("summary").textContent = parts.join(" · ");
    const arena = tn.system === "arena";
    $("score-head").textContent = t(arena ? "tn.points" : "tn.score");
    $("tb-head").textContent = t(arena ? "tn.streak" : "tn.tb");
    const body = $("standings").tBodies[0];
    body.replaceChildren();
    const names = {};
    for (const s of tn.standings || []) {
      names[s.player] = s.name;
      const tr = el("tr");
      tr.append(el("td", s.rank), el("td", s.name + (s.program ? " " + t("tn.program") : "")),
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
    for (const p of tn.pairings || []) {
      if (!byRound.has(p.round)) byRound.set(p.round, []);
      byRound.get(p.round).push(p);
    }
    for (const [round, ps] of [...byRound.entries()].sort((a, b) => a[0] - b[0])) {
      const h = el("h3", t(arena ? "tn.wave" : "tn.roundN", { n: round }));
      const ul = el("ul");
      for (const p of ps) {
        const li = el("li");
        const white = p.white_name || names[p.white] || "", black = p.black_name || names[p.black] || "";
        li.append(el("span", p.bye ? t("tn.bye", { name: white }) : white + " – " + black + " " + (p.result || "…") + " "));
        if (p.game) li.append(gameLink(p.game));
        ul.append(li);
      }
      rounds.append(h, ul);
    }
  };
  // The follow of the tournament's record on the browser's one stream (live.js), started once,
  // after the last event the first state shows (its last_event): it misses nothing after it, and
  // goes on after the last event it got when the connection breaks.
  let following = null;
  // Without a state (its read failed) it starts without a number: its first event, a reset,
  // reads the state again.
  const listen = (last) => {
    // Each event of the record (a player joined or left, a round paired, a result, the end)
    // and a reset (the stream could not resume) read the state again; a refused follow is
    // started again with the next state read.
    following = QBLive.follow("tournament", id, last, {
      record: load,
      reset: load,
      open: () => { $("live").textContent = t("live.on"); },
      error: () => { $("live").textContent = t("live.off"); },
      refused: () => {
        $("live").textContent = t("live.off");
        following = null;
        setTimeout(load, 15000);
      },
    });
  };
  let loading = null, again = false;
  // load reads the state and draws it; a load asked for while one runs runs once after it.
  async function load() {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        const r = await api("GET", "/api/v1/tournaments/" + id);
        if (!r.ok) {
          QB.status(QB.errorText(r), "error");
          if (!following) listen(null);
          continue;
        }
        QB.status("");
        render(r.data);
        if (!following) listen(r.data.last_event || 0);
      } while (again);
    })();
    try {
      await loading;
    } finally {
      loading = null;
    }
  }
  // The viewer's language comes with the login (a visitor's from the browser) before the first
  // words are drawn.
  QB.loadMe().then(load);
})();
