"use strict";
// The leaderboards (/top/<game>) and the logged-in player's rating chart. The words come with
// the leaderboard, in the player's language; the names are set as text, never markup.
(() => {
  const { api, el, status } = QB;
  const $ = (id) => document.getElementById(id);

  function entry(s) {
    const name = s.name + (s.program ? " 🤖" : "");
    return el("li", { class: "game" + (s.me ? " my-turn" : ""), value: s.place },
      el("span", { class: "who" }, name),
      el("span", { class: "state" }, `${Math.round(s.rating)} ± ${Math.round(s.rd)}`),
      el("span", { class: "badge" }, String(s.games)));
  }

  async function show(game) {
    const r = await api("GET", "/api/v1/top/" + encodeURIComponent(game));
    if (!r.ok) {
      if (r.status === 401) $("login-hint").hidden = false;
      status(QB.errorText(r), "error");
      return;
    }
    const d = r.data;
    document.title = d.texts.heading;
    $("heading").textContent = d.texts.heading;
    $("established").replaceChildren(...d.established.map(entry));
    $("provisional").replaceChildren(...d.provisional.map(entry));
    $("provisional-heading").textContent = d.texts.provisional;
    $("provisional-heading").hidden = d.provisional.length === 0;
    $("empty").textContent = d.texts.empty;
    $("empty").hidden = d.established.length + d.provisional.length > 0;
    $("place").textContent = d.texts.place;
    $("ratings").hidden = false;
    status("");
  }

  async function main() {
    const me = await QB.loadMe();
    if (!me) {
      $("login-hint").hidden = false;
      return;
    }
    const vs = await api("GET", "/api/v1/variants");
    const games = vs.ok ? vs.data : [];
    let game = decodeURIComponent(location.pathname.replace(/^\/top\/?/, "")) || (games[0] && games[0].name) || "chess";
    const select = $("game");
    select.replaceChildren(...games.map((g) => el("option", { value: g.name, selected: g.name === game }, g.title)));
    select.addEventListener("change", () => {
      game = select.value;
      history.replaceState(null, "", "/top/" + encodeURIComponent(game));
      show(game);
    });
    const chart = $("chart");
    chart.addEventListener("load", () => { chart.hidden = false; });
    chart.src = "/api/v1/me/rating.png";
    show(game);
  }
  main();
})();
