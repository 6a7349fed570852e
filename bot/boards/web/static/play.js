"use strict";
// The page of one game. It draws the state from GET /api/v1/games/{id}: the engine's picture
// with marks laid over it in percent of its size (so it scales with the screen), the players and
// their clocks, the moves. A move is entered by tapping squares: a piece, then each landing
// square, until the tapped squares are the whole path of one legal move. The page reads the state
// once when it loads; the server then pushes every change of the game (Server-Sent Events, see
// listen): the page draws what an event of the board's record says (a move or an undo with the
// new picture, the legal moves of the player to move and who may take a move back, a move seen,
// a draw offered or declined, the spectators' switch) and reads the state again only when it
// cannot: an event that does not follow the ply shown (one the page missed), the end of the game
// (its result and what follows it are worded for the viewer), the start (the opponent's name), an
// event recorded before it carried the position, a rematch offered or answered, or a reset of the
// stream. Events that come while a state is under way (a fetch, the
// answer of the page's own operation) wait for it and are drawn after it, but those it holds.
// The clocks count down locally; the page never polls.
//
// The review: the buttons under the board (first, back, forward, last) and the arrow keys (←, →,
// Home, End) step the position shown through the game's plies, and a tap on a move of the list
// shows the position after it; the picture is the server's of that ply, and the list marks the
// ply shown. Looking back is a state of its own (view: the ply shown, null when following the
// game): a move that comes meanwhile goes into the list and the clocks but leaves the position
// shown, the line above the list says the page looks back, and "Back to the game" (or stepping
// forward past the last ply, or End) follows the game again. The flip shows the board the
// other way up (the other seat's picture). Moves are entered on the game's own position only,
// as the player sees it: looking back or flipped, the board takes no taps and shows no marks.
// "Analyse" asks the server (POST /api/v1/analysis) for the engine's evaluation and best line
// of the position shown; it is offered to spectators and once the game is over, as the server
// refuses a player the analysis of their own game in play.
(() => {
  const { t, api, el, status } = QB;
  const match = location.pathname.match(/^\/play\/(\d+)$/);
  const id = match ? match[1] : "";
  const base = "/api/v1/games/" + id;
  const $ = (sel) => document.getElementById(sel);

  let me = null;        // the answer of /api/v1/me, null for a visitor
  let state = null;     // the state drawn
  let fetchedAt = 0;    // performance.now() when state arrived
  let tapped = [];      // the squares tapped towards a move
  let fresh = [];       // plies shown as new: the opponent's moves not yet seen when they arrived
  let freshAt = -1;     // the ply at which fresh was taken
  let seenSent = 0;     // the highest ply reported seen
  let resignPly = -1;   // the ply at which the resignation's question was asked
  let busy = false;     // a POST is under way: taps wait for its answer
  let fetching = false; // a GET of the state is under way
  let again = false;    // another GET is wanted when it ends
  let wanted = 0;       // the newest revision of the game the events named
  let operating = 0;    // POSTs under way, whose answers are states
  let pending = [];     // the events of the record that came while a state was under way
  let lastEvent = 0;    // the number of the newest event of the record the stream brought
  let view = null;      // the ply shown while looking back; null: the game as it goes on
  let flipped = false;  // the board is shown the other way up
  let analysed = -1;    // the ply whose analysis is shown (-1: none)

  // refresh fetches the state; calls during a fetch coalesce into one more fetch.
  async function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      do {
        again = false;
        const before = wanted;
        const r = await api("GET", base);
        if (r.ok) show(r.data);
        else failed(r);
        // A revision announced while the GET was under way may be newer than its answer.
        if (r.ok && wanted > before && wanted > state.revision) again = true;
      } while (again);
    } finally {
      fetching = false;
    }
    drain();
  }

  const samePath = (a, b) => a.length === b.length && a.every((s, i) => s === b[i]);
  const startsWith = (path, prefix) => prefix.length <= path.length && prefix.every((s, i) => s === path[i]);
  const legal = () => (state && state.legal) || [];
  const myTurn = () => state && state.status === "active" && state.seat >= 0 && state.seat === state.to_move && legal().length > 0;
  // shownPly is the ply of the position shown; live, whether it is the game's own position as
  // the player sees it (where moves are entered).
  const shownPly = () => (view === null ? state.ply : view);
  const live = () => view === null && !flipped;

  // show takes a new state and draws it; an answer overtaken by a newer one is dropped.
  function show(s) {
    if (state && s.revision < state.revision) return;
    const moved = !state || s.ply !== state.ply || s.status !== state.status;
    state = s;
    document.dispatchEvent(new CustomEvent("qb:state", { detail: s })); // for aftergame.js
    fetchedAt = performance.now();
    shown(moved);
  }

  // shown draws the state after it changed (moved: to another ply or status): the move being
  // entered is dropped when the board moved or it leads to no legal move, the opponent's new
  // moves are marked, and reported seen.
  function shown(moved) {
    const s = state;
    if (moved || !legal().some((m) => startsWith(m.path, tapped))) {
      tapped = [];
      hideChoices();
    }
    if (s.unseen && s.unseen.length) {
      fresh = s.unseen.slice();
      freshAt = s.ply;
    } else if (s.ply !== freshAt) {
      fresh = [];
    }
    draw();
    reportSeen();
  }

  // reportSeen tells the server that the player has seen the new moves, once they are drawn on
  // a visible page.
  async function reportSeen() {
    const s = state;
    if (!s || s.seat < 0 || !s.unseen || !s.unseen.length || document.visibilityState !== "visible") return;
    if (s.ply <= seenSent) return;
    seenSent = s.ply;
    const r = await operate(base + "/seen", { ply: s.ply });
    if (r.ok) show(r.data);
    else failed(r);
    caughtUp();
  }

  // operate POSTs an operation; while it is under way, the revisions the events name wait for
  // its answer (caughtUp), which shows the operation's own change.
  async function operate(path, body) {
    operating++;
    try {
      return await api("POST", path, body);
    } finally {
      operating--;
    }
  }

  // caughtUp reads the state when an event named a revision newer than the one shown while
  // operations were under way.
  function caughtUp() {
    if (!operating && state && wanted > state.revision) refresh();
    else drain();
  }

  // failed reports a failed call in the status line and recovers what can be recovered.
  function failed(r) {
    if (r.status === 409) {
      status(r.error.code === "stale" ? t("err.stale") : r.error.message, "warn");
      refresh();
      return;
    }
    if (r.status === 422) {
      const moves = (r.error.legal && r.error.legal.length ? r.error.legal : legal().map((m) => m.text)).join(", ");
      status(t("err.illegal", { message: r.error.message, moves }), "error");
      return;
    }
    if (r.status === 403 && r.error.code !== "csrf") {
      status(r.error.message || t("err.forbidden"), "error");
      return;
    }
    status(QB.errorText(r), "error");
  }

  // post runs an operation on the game and draws the state it answers.
  async function post(path, body) {
    if (busy) return false;
    busy = true;
    status(t("sending"));
    const r = await operate(base + path, body);
    busy = false;
    let ok = false;
    if (r.ok) {
      status("");
      show(r.data);
      ok = true;
    } else failed(r);
    // A revision announced while the operation was under way (its own change, or another's)
    // that its answer does not show is read now.
    caughtUp();
    return ok;
  }

  function seatName(i) {
    const seat = state.seats && state.seats[i];
    return (seat && seat.name) || t("nobody");
  }

  function draw() {
    const s = state;
    s.moves = s.moves || [];
    s.seats = s.seats || [];
    document.title = s.title;
    $("title").textContent = s.title;
    // A game of a tournament names it and its round, linked to the tournament's page.
    const tn = $("tournament");
    tn.hidden = !s.tournament;
    if (s.tournament) {
      tn.textContent = s.tournament.title;
      tn.href = "/tournaments/" + s.tournament.id;
    }
    drawPlayers();
    drawClocks();

    let turn = "";
    if (s.status === "waiting") turn = t("turn.waiting");
    else if (s.status === "active") {
      turn = s.seat === s.to_move ? t("turn.you") : t(s.seat < 0 ? "turn.side" : "turn.other", { name: seatName(s.to_move) });
    }
    if (s.seat < 0) turn = (t("spectating") + " " + turn).trim();
    $("turn").textContent = turn;

    const result = s.result ? s.result.text : s.status === "aborted" ? t("status.aborted") : "";
    $("result").textContent = result;
    $("result").hidden = !result;

    const news = fresh.length ? t("news.move", { moves: s.moves.filter((m) => fresh.includes(m.ply)).map((m) => m.text).join(", ") }) : "";
    $("news").textContent = news;
    $("news").hidden = !news;

    let offer = "";
    if (s.offer && s.status === "active") offer = s.offer.seat === s.seat ? t("offer.mine") : t("offer.theirs", { name: seatName(s.offer.seat) });
    // The answer to the player's offer of this move: the bot's at once, or the opponent's.
    else if (s.declined && s.status === "active") offer = s.declined.text;
    $("offer").textContent = offer;
    $("offer").hidden = !offer;

    const player = s.seat >= 0, active = s.status === "active";
    const theirOffer = active && player && s.offer && s.offer.seat !== s.seat;
    $("join").hidden = !(s.status === "waiting" && !player && me);
    $("undo").hidden = !(active && player && s.can_undo);
    $("draw-offer").hidden = !(active && player && !s.offer && !s.declined);
    $("draw-accept").hidden = !theirOffer;
    $("draw-decline").hidden = !theirOffer;
    $("resign").hidden = !(active && player);
    if (!active || !player) $("confirm").hidden = true;
    $("spectators-row").hidden = !player;
    $("spectators").checked = !!s.spectators;
    $("export").href = base + "/export";

    const list = $("moves");
    // One row a move, numbered by moves (1. e4 e5 2. Nf3): the first side's ply carries the
    // number, and so does a second side's ply that opens the list (1… e5).
    list.replaceChildren(...s.moves.map((m, i) => {
      const opens = i === 0 || s.moves[i - 1].number !== m.number;
      const current = view !== null && m.ply === view;
      const attrs = { class: `move seat-${m.seat}` + (fresh.includes(m.ply) ? " fresh" : "") + (current ? " current" : ""), "data-ply": m.ply };
      if (opens) attrs["data-number"] = m.seat === 0 ? `${m.number}.` : `${m.number}…`;
      return el("li", attrs, m.text);
    }));
    // The newest move is brought into view by scrolling the list alone: scrollIntoView would
    // scroll the window too, and on a phone the page would jump at every move.
    if (fresh.length && view === null) list.scrollTop = list.scrollHeight;

    drawReview();
    drawPicture();
  }

  // drawReview draws the review's buttons, the line that says the page looks back, and the
  // analysis' button.
  function drawReview() {
    const s = state;
    if (view !== null && view >= s.ply) view = null; // caught up (or moves were taken back)
    const at = shownPly();
    $("first").disabled = $("back").disabled = at <= 0;
    $("forward").disabled = $("last").disabled = view === null;
    const mv = s.moves.find((m) => m.ply === view);
    $("reviewing").hidden = view === null;
    $("reviewing-text").textContent = view === null ? "" : view === 0 ? t("review.start") :
      t("review.at", { move: mv ? `${mv.number}${mv.seat === 0 ? "." : "…"} ${mv.text}` : "", ply: view, plies: s.ply });
    const playing = s.seat >= 0 && (s.status === "active" || s.status === "waiting");
    $("analyse").hidden = playing;
    if (analysed !== at || playing) {
      analysed = -1;
      $("analysis").hidden = true;
      $("analysis").textContent = "";
    }
    const cur = $("moves").querySelector(".move.current");
    if (cur) {
      const list = $("moves");
      if (cur.offsetTop < list.scrollTop || cur.offsetTop + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = cur.offsetTop - list.clientHeight / 2;
    }
  }

  // step shows the position after ply n (clamped to the game's), looking back unless it is the
  // last.
  function step(n) {
    if (!state) return;
    n = Math.max(0, Math.min(state.ply, n));
    view = n >= state.ply ? null : n;
    tapped = [];
    hideChoices();
    draw();
  }

  // scoreText words an analysis' score for the side to move: a mate in moves, a win rate in
  // percent (MCTS), or pawns (hundredths of the engine's units).
  function scoreText(a) {
    if (a.score === null || a.score === undefined) return t("analysis.only");
    if (a.mate) return t(a.mate > 0 ? "analysis.mate" : "analysis.mated", { n: Math.ceil(Math.abs(a.mate) / 2) });
    if (a.algorithm === "mcts") return `${(a.score / 10).toFixed(1)}%`;
    return (a.score >= 0 ? "+" : "") + (a.score / 100).toFixed(2);
  }

  // analyse asks for the analysis of the position shown and shows it, unless the page has moved
  // to another position meanwhile.
  async function analyse() {
    const ply = shownPly();
    const box = $("analysis");
    box.hidden = false;
    box.textContent = t("analysis.busy");
    analysed = ply;
    const r = await api("POST", "/api/v1/analysis", { game: Number(id), ply });
    if (analysed !== ply || shownPly() !== ply) return;
    if (!r.ok) {
      box.textContent = QB.errorText(r);
      return;
    }
    const a = r.data;
    if (a.over) {
      box.textContent = t("analysis.over");
      return;
    }
    const line = (a.line || []).map((m) => m.text).join(" ");
    box.replaceChildren(el("span", { class: "score" }, t("analysis.score", { score: scoreText(a), name: seatName(a.to_move) })),
      el("br", {}), el("span", { class: "line" }, t("analysis.line", { line })));
  }

  function drawPlayers() {
    const s = state;
    const box = $("players");
    box.replaceChildren(...[0, 1].map((i) => {
      const seat = s.seats[i] || {};
      // The server names the bot with its level ("Bot (easy)"), in the words Telegram uses.
      let name = seat.name || t("nobody");
      if (i === s.seat) name += ` (${t("you")})`;
      const toMove = s.status === "active" && s.to_move === i;
      return el("div", { class: "player" + (toMove ? " to-move" : ""), "data-seat": i },
        el("span", { class: "name" }, name), el("span", { class: "clock" }, ""));
    }));
  }

  // perMove reports a clock of a time per move (correspondence): a deadline, but no main time.
  const perMove = () => !state.main_ms && state.seats.every((x) => !x || !x.clock_ms);

  // clockMs is what is left on a seat's clock now: the side to move counts down from the
  // state's clock_ms since it arrived, never past its deadline; with a time per move, the side
  // to move has what is left until its deadline, and the other side no clock (null).
  function clockMs(i) {
    const s = state;
    const running = s.status === "active" && s.to_move === i && s.deadline;
    if (perMove()) {
      const left = running ? Date.parse(s.deadline) - Date.now() : NaN;
      return Number.isNaN(left) ? null : Math.max(0, left);
    }
    let ms = (s.seats[i] && s.seats[i].clock_ms) || 0;
    if (running) {
      ms -= performance.now() - fetchedAt;
      const left = Date.parse(s.deadline) - Date.now();
      if (!Number.isNaN(left)) ms = Math.min(ms, left);
    }
    return Math.max(0, ms);
  }

  // formatClock writes a clock as players read it: h:mm:ss, m:ss, and under ten seconds the
  // tenths too (0:07.3), rounded down so that the clock never shows time that is not there.
  function formatClock(ms) {
    const pad = (n) => String(n).padStart(2, "0");
    if (ms < 10000) {
      const tenths = Math.floor(ms / 100);
      return `0:${pad(Math.floor(tenths / 10))}.${tenths % 10}`;
    }
    const total = Math.ceil(ms / 1000);
    const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, sec = total % 60;
    return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
  }

  // lowTimeMs is when a running clock turns to the low-time cue: under a fifth of each side's
  // main time (main_ms), but at least ten seconds and at most a minute; a clock with no main
  // time (a day a move) warns in its last minute.
  function lowTimeMs() {
    return Math.min(60000, Math.max(10000, (state.main_ms || Infinity) / 5));
  }

  // The clocks tick every tenth of a second while one of them shows tenths, else twice a second.
  let clockTimer = 0;
  let clockEvery = 0;

  function drawClocks() {
    if (!state) return;
    const timed = !!state.deadline || state.seats.some((x) => x && x.clock_ms > 0);
    const low = timed ? lowTimeMs() : 0;
    let fine = false;
    for (const p of document.querySelectorAll("#players .player")) {
      const seat = Number(p.dataset.seat);
      const clock = p.querySelector(".clock");
      clock.hidden = !timed;
      if (!timed) continue;
      const ms = clockMs(seat);
      const running = state.status === "active" && state.to_move === seat && !!state.deadline;
      if (ms === null) {
        clock.textContent = "";
        clock.classList.remove("running", "low");
        continue;
      }
      clock.textContent = formatClock(ms);
      clock.classList.toggle("running", running);
      // The cue is for the clock that runs (and for one left low at the end of a game).
      clock.classList.toggle("low", ms < low && (running || state.status !== "active"));
      fine = fine || (running && ms < 10000 && ms > 0);
    }
    const every = fine ? 100 : 500;
    if (every !== clockEvery) {
      clearInterval(clockTimer);
      clockEvery = every;
      clockTimer = setInterval(drawClocks, every);
    }
  }

  // drawPicture shows the engine's picture and lays the marks over it.
  function drawPicture() {
    const pic = state.picture;
    const board = $("board");
    if (!pic || !pic.url) { board.hidden = true; return; }
    board.hidden = false;
    const img = $("picture");
    const url = pictureURL();
    if (img.getAttribute("src") !== url) img.src = url;
    img.alt = state.title;
    board.style.aspectRatio = `${pic.width} / ${pic.height}`;
    // The whole board fits the screen's height as well as its width.
    board.style.maxWidth = `calc(78vh * ${pic.width / pic.height})`;
    drawMarks();
  }

  // pictureURL is the address of the picture of the position shown: the state's, or, looking
  // back or flipped, the picture of that ply from that side (whose version the page does not
  // know, so the address names none).
  function pictureURL() {
    const url = state.picture.url;
    if (live()) return url;
    const u = new URL(url, location.origin);
    const seat = Number(u.searchParams.get("seat")) || 0;
    u.searchParams.set("seat", String(flipped ? 1 - seat : seat));
    u.searchParams.set("ply", String(shownPly()));
    if (view !== null) u.searchParams.delete("v");
    return u.pathname + u.search;
  }

  // lastSquares are the squares named in the notation of the new moves, marked on the board.
  function lastSquares(names) {
    const found = new Set();
    for (const m of state.moves) {
      if (!fresh.includes(m.ply)) continue;
      for (const tok of (m.move || m.text).match(/[a-z]?\d+/gi) || []) {
        const name = names.get(tok.toLowerCase());
        if (name) found.add(name);
      }
    }
    return found;
  }

  function drawMarks() {
    const pic = state.picture;
    const box = $("marks");
    box.replaceChildren();
    if (!pic || !pic.squares) return;
    const spots = new Map(pic.squares.map((q) => [q.name, q]));
    const mark = (name, kind) => {
      const q = spots.get(name);
      if (!q) return;
      const m = el("div", { class: "mark " + kind, "data-square": name });
      m.style.left = `${(q.x / pic.width) * 100}%`;
      m.style.top = `${(q.y / pic.height) * 100}%`;
      m.style.width = `${((2 * q.r) / pic.width) * 100}%`;
      m.style.height = `${((2 * q.r) / pic.height) * 100}%`;
      box.append(m);
    };
    if (!live()) return;
    const lower = new Map(pic.squares.map((q) => [q.name.toLowerCase(), q.name]));
    for (const name of lastSquares(lower)) mark(name, "last");
    if (!myTurn()) return;
    if (!tapped.length) {
      for (const name of new Set(legal().map((m) => m.path[0]))) mark(name, "piece");
      return;
    }
    for (const name of tapped) mark(name, "sel");
    const next = new Set(legal().filter((m) => m.path.length > tapped.length && startsWith(m.path, tapped)).map((m) => m.path[tapped.length]));
    for (const name of next) mark(name, "target");
  }

  // squareAt is the square under a point of the page, or "" when it is off the squares.
  function squareAt(clientX, clientY) {
    const pic = state && state.picture;
    const rect = $("picture").getBoundingClientRect();
    if (!pic || !pic.squares || !rect.width || !rect.height) return "";
    const x = ((clientX - rect.left) / rect.width) * pic.width;
    const y = ((clientY - rect.top) / rect.height) * pic.height;
    let best = null, dist = Infinity;
    for (const q of pic.squares) {
      const d = Math.hypot(q.x - x, q.y - y);
      if (d < dist) { best = q; dist = d; }
    }
    // r is the circle inside a square: its corners lie up to r·√2 from the centre.
    return best && dist <= best.r * 1.5 ? best.name : "";
  }

  // tap adds a square to the move being entered and plays the move once it is complete.
  function tap(sq) {
    if (!myTurn() || !live() || busy || !sq) return;
    const moves = legal();
    const next = tapped.concat([sq]);
    if (moves.some((m) => startsWith(m.path, next))) tapped = next;
    else if (tapped.length && tapped[tapped.length - 1] === sq) tapped = tapped.slice(0, -1);
    else if (moves.some((m) => m.path[0] === sq)) tapped = [sq];
    else tapped = [];
    hideChoices();
    const exact = tapped.length ? moves.filter((m) => samePath(m.path, tapped)) : [];
    const longer = moves.filter((m) => m.path.length > tapped.length && startsWith(m.path, tapped));
    if (exact.length === 1 && !longer.length) {
      drawMarks();
      play(exact[0].text);
      return;
    }
    if (exact.length) offerChoices(exact);
    drawMarks();
  }

  // offerChoices shows one button per move when several moves share the tapped path (a chess
  // promotion).
  function offerChoices(moves) {
    const box = $("choices");
    const buttons = moves.map((m) => {
      const b = el("button", { type: "button", class: "choice", "data-move": m.text }, m.shown || m.text);
      b.addEventListener("click", () => play(m.text));
      return b;
    });
    const cancel = el("button", { type: "button", class: "cancel" }, t("act.cancel"));
    cancel.addEventListener("click", () => { tapped = []; hideChoices(); drawMarks(); });
    box.replaceChildren(el("span", {}, t("choose")), ...buttons, cancel);
    box.hidden = false;
  }

  function hideChoices() {
    $("choices").hidden = true;
    $("choices").replaceChildren();
  }

  async function play(text) {
    const ply = state.ply;
    hideChoices();
    const ok = await post("/moves", { move: text, ply });
    if (!ok) {
      tapped = [];
      if (state) drawMarks();
    }
  }

  // need fetches the state, for an event the page cannot draw by itself.
  function need() {
    if (fetching) again = true;
    else refresh();
  }

  // moveText is a move as the list writes it: the event's numbered text ("3. Nf3", "3… Nc6")
  // without its number; moveNumber is that number.
  const moveText = (written) => written.replace(/^\d+(\.|…) /, "");
  const moveNumber = (written, ply) => {
    const m = written.match(/^(\d+)(\.|…) /);
    return m ? Number(m[1]) : Math.floor((ply - 1) / 2) + 1;
  };

  // position reports whether an event that leaves the game in play carries what this page
  // draws of its position: the picture's version, who may take a move back, and for the player
  // to move the legal moves (events recorded before they carried it do not).
  function position(d) {
    if (d.status !== "active" || !d.picture) return false;
    if (state.seat < 0) return true;
    return !!d.can_undo && (d.to_move !== state.seat || Array.isArray(d.legal));
  }

  // turned takes what an event that moved the game on (a move, an undo) says of the board after
  // it: the side to move, the offer, the legal moves, the undo button, the clocks and the
  // picture at the event's ply.
  function turned(e) {
    const s = state, d = e.data;
    s.ply = e.ply;
    s.to_move = d.to_move;
    s.offer = d.offer === null || d.offer === undefined ? null : { seat: d.offer };
    s.declined = null;
    s.legal = s.seat >= 0 && d.to_move === s.seat ? d.legal : [];
    s.can_undo = s.seat >= 0 && !!d.can_undo[s.seat];
    s.deadline = d.deadline || null;
    if (d.clocks_ms) d.clocks_ms.forEach((ms, i) => { if (s.seats[i]) s.seats[i].clock_ms = ms; });
    // The picture's address names the ply and the picture's version; the viewer's seat stays.
    const u = new URL(s.picture.url, location.origin);
    u.searchParams.set("ply", String(e.ply));
    u.searchParams.set("v", d.picture);
    s.picture.url = u.pathname + u.search;
    fetchedAt = performance.now();
  }

  // applyMoved draws a move from its event: the list, the opponent's move as news, and the
  // board after it (turned). It reports false when the event does not follow the ply shown or
  // does not say enough (a move that ends the game: its result is worded for the viewer).
  function applyMoved(e) {
    const s = state, d = e.data;
    if (e.ply !== s.ply + 1 || s.status !== "active" || !d.written || !position(d)) return false;
    s.moves = (s.moves || []).concat([{ ply: e.ply, seat: e.seat, number: moveNumber(d.written, e.ply), text: moveText(d.written), move: d.move }]);
    if (s.seat >= 0) {
      // The player's own move says they have seen the board; the opponent's is news.
      s.unseen = e.seat === s.seat ? [] : (s.unseen || []).concat([e.ply]);
    }
    turned(e);
    return true;
  }

  // applyUndone draws an undo from its event: the moves taken back leave the list.
  function applyUndone(e) {
    const s = state, d = e.data;
    if (!d.undone || e.ply !== s.ply - d.undone || s.status !== "active" || !position(d)) return false;
    s.moves = (s.moves || []).filter((m) => m.ply <= e.ply);
    s.unseen = (s.unseen || []).filter((p) => p <= e.ply);
    turned(e);
    return true;
  }

  // applyDeclined draws a draw offer declined: by the opponent, the player's offer has its
  // answer (the bot's words for the bot's); by the player, the opponent's offer goes. The
  // decline of a move (the mover passing over the offer) changes nothing the move did not.
  function applyDeclined(e) {
    const s = state;
    if (e.ply !== s.ply || s.status !== "active") return false;
    if (s.offer && s.seat >= 0 && s.offer.seat === s.seat && e.seat !== s.seat) {
      const bot = s.seats[e.seat] && s.seats[e.seat].bot;
      s.declined = { seat: e.seat, text: t(bot ? "offer.botDeclines" : "offer.declined") };
    }
    s.offer = null;
    return true;
  }

  // applySeen draws a seat having seen the board: the player's own news are no longer unseen,
  // and the player whose move was seen may no longer take it back.
  function applySeen(e) {
    const s = state, d = e.data;
    if (e.ply !== s.ply) return false;
    if (s.seat >= 0 && e.actor === s.seat) {
      const upTo = d.seen || e.ply;
      s.unseen = (s.unseen || []).filter((p) => p > upTo);
    }
    if (s.seat >= 0 && e.seat === s.seat) s.can_undo = d.can_undo ? !!d.can_undo[s.seat] : false;
    return true;
  }

  // record takes an event of the board's record: drawn at once, or, while a state is under way
  // (a fetch, or the answer of an operation), once that state is shown (drain).
  function record(ev) {
    let e;
    try { e = JSON.parse(ev.data); } catch (err) { need(); return; }
    e.data = e.data || {};
    lastEvent = Math.max(lastEvent, e.id || 0);
    pending.push(e);
    drain();
  }

  // drain draws the events of the record that came while a state was under way, in order, as
  // long as no state is under way (an event the page cannot draw fetches one).
  function drain() {
    while (pending.length && state && !fetching && !operating) apply(pending.shift());
  }

  // apply draws an event of the record from what it says when it says enough, else the state
  // is fetched. An event the state shown holds already (its revision says: the state of the
  // event's change or a later one) is passed over, but a switch of the spectators, which makes
  // no new revision.
  function apply(e) {
    const s = state, d = e.data;
    const rev = d.revision || 0;
    if (rev && rev <= s.revision && e.kind !== "spectators") return;
    let drawn = false, moved = false;
    switch (e.kind) {
      case "moved":
        drawn = moved = applyMoved(e);
        break;
      case "undone":
        drawn = moved = applyUndone(e);
        break;
      case "seen":
        drawn = applySeen(e);
        break;
      case "spectators":
        s.spectators = !!d.spectators;
        drawn = true;
        break;
      case "draw_offered":
        if (e.ply === s.ply && s.status === "active") {
          s.offer = d.offer === null || d.offer === undefined ? null : { seat: d.offer };
          drawn = true;
        }
        break;
      case "draw_declined":
        drawn = applyDeclined(e);
        break;
    }
    if (!drawn || !rev) { need(); return; }
    s.revision = Math.max(s.revision, rev);
    wanted = Math.max(wanted, rev);
    shown(moved);
  }

  // listen follows the game's events (docs/web-api.md) on the browser's one stream (live.js):
  // "record", an event of the board's record, numbered; "reset", the stream could not go on
  // from the page's last event, the page reads the state once. The follow starts after the
  // state the page shows, from the board's last event that state names, so a change made
  // between the two comes as its event. The stream is opened anew by itself after a loss, from
  // the number of the last event it got, so the server sends what the page missed and the page
  // reads nothing again; a refused follow (the server has no live updates, or the page may not
  // watch the game any more) is tried again later, from the state shown then.
  function listen() {
    const n = Math.max(lastEvent, (state && state.last_event) || 0);
    const live = (on) => {
      $("live").textContent = t(on ? "live.on" : "live.off");
      $("live").classList.toggle("on", on);
    };
    QBLive.follow("game", id, n || null, {
      record: (text) => record({ data: text }),
      reset: () => need(),
      open: () => live(true),
      error: () => live(false),
      refused: () => {
        live(false);
        setTimeout(listen, 15000);
      },
    });
  }

  function wire() {
    $("board").addEventListener("click", (ev) => tap(squareAt(ev.clientX, ev.clientY)));
    $("join").addEventListener("click", () => post("/join"));
    // Each operation that depends on the position carries the ply it was decided on: the
    // server refuses it as stale when the game has moved on since (a resignation too, at the
    // ply its question was asked).
    $("undo").addEventListener("click", () => post("/undo", { ply: state.ply }));
    $("draw-offer").addEventListener("click", () => post("/draw", { action: "offer", ply: state.ply }));
    $("draw-accept").addEventListener("click", () => post("/draw", { action: "accept", ply: state.ply }));
    $("draw-decline").addEventListener("click", () => post("/draw", { action: "decline", ply: state.ply }));
    $("resign").addEventListener("click", () => {
      resignPly = state.ply;
      $("confirm").hidden = false;
      $("resign-no").focus();
    });
    $("resign-no").addEventListener("click", () => { $("confirm").hidden = true; });
    $("resign-yes").addEventListener("click", async () => {
      $("confirm").hidden = true;
      await post("/resign", { ply: resignPly });
    });
    $("spectators").addEventListener("change", async (ev) => {
      const want = ev.target.checked;
      if (!(await post("/spectators", { allow: want })) && state) $("spectators").checked = !!state.spectators;
    });
    document.addEventListener("visibilitychange", () => reportSeen());
    $("first").addEventListener("click", () => step(0));
    $("back").addEventListener("click", () => step(shownPly() - 1));
    $("forward").addEventListener("click", () => step(shownPly() + 1));
    $("last").addEventListener("click", () => step(Infinity));
    $("live-view").addEventListener("click", () => step(Infinity));
    $("flip").addEventListener("click", () => {
      flipped = !flipped;
      tapped = [];
      hideChoices();
      if (state) draw();
    });
    $("analyse").addEventListener("click", () => analyse());
    $("moves").addEventListener("click", (ev) => {
      const li = ev.target.closest(".move");
      if (li) step(Number(li.dataset.ply));
    });
    document.addEventListener("keydown", (ev) => {
      if (!state || !ev.target.closest || ev.altKey || ev.ctrlKey || ev.metaKey || ev.target.closest("input, textarea, select")) return;
      const to = { ArrowLeft: shownPly() - 1, ArrowRight: shownPly() + 1, Home: 0, End: Infinity }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      step(to);
    });
  }

  (async () => {
    if (!id) {
      QB.setLang(navigator.language);
      status(t("err.notFound"), "error");
      return;
    }
    me = await QB.loadMe();
    wire();
    await refresh();
    listen();
  })();
})();
