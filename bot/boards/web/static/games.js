"use strict";
// The lobby: my games (my turn first), the games waiting for an opponent, a form to start a
// game, and logging out. Everything comes from the JSON API.
(() => {
  const { t, api, el, status } = QB;
  const $ = (sel) => document.getElementById(sel);
  let variants = [];

  // leftText writes the time left on a clock: days and hours, hours and minutes, or m:ss.
  function leftText(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    if (d) return t("time.days", { d, h });
    if (h) return t("time.hours", { h, m });
    return `${m}:${String(s % 60).padStart(2, "0")}`;
  }

  function gameItem(g, joinable) {
    const who = g.opponent ? t("lobby.vs", { name: g.opponent }) : t("lobby.nobody");
    const li = el("li", { class: "game" + (g.my_turn ? " my-turn" : ""), "data-id": g.id },
      el("a", { href: "/play/" + g.id }, `${g.title} #${g.id}`),
      el("span", { class: "who" }, who),
      el("span", { class: "state" }, t("status." + g.status)));
    // The clock of the game, and the time the side to move has left, as of the answer.
    if (g.control_title || g.control) li.append(el("span", { class: "control" }, g.control_title || g.control));
    if (typeof g.left_ms === "number" && g.status === "active") {
      li.append(el("span", { class: "left" }, t(g.my_turn ? "lobby.leftYou" : "lobby.leftThem", { time: leftText(g.left_ms) })));
    }
    if (g.my_turn) li.append(el("span", { class: "badge" }, t("lobby.yourTurn")));
    if (joinable) {
      const b = el("button", { type: "button", class: "join primary", "data-id": g.id }, t("act.join"));
      b.addEventListener("click", async () => {
        b.disabled = true;
        const r = await api("POST", `/api/v1/games/${g.id}/join`);
        b.disabled = false;
        if (r.ok) location.assign("/play/" + g.id);
        else status(QB.errorText(r), "error");
      });
      li.append(b);
    }
    return li;
  }

  async function loadLists() {
    const [mine, waiting] = await Promise.all([api("GET", "/api/v1/games"), api("GET", "/api/v1/games/waiting")]);
    for (const [r, list, empty, joinable] of [[mine, "my-games", "my-empty", false], [waiting, "waiting-games", "waiting-empty", true]]) {
      if (!r.ok) {
        status(QB.errorText(r), "error");
        continue;
      }
      const games = (r.data || []).slice();
      // My turn first; the order of the answer otherwise.
      if (!joinable) games.sort((a, b) => Number(!!b.my_turn) - Number(!!a.my_turn));
      $(list).replaceChildren(...games.map((g) => gameItem(g, joinable)));
      $(empty).hidden = games.length > 0;
    }
  }

  // fillControls offers the clocks and the bot's levels of the chosen game: the levels are
  // named by the server as Telegram names them, with their measured rating in that game.
  function fillControls() {
    const v = variants.find((x) => x.name === $("variant").value);
    $("control").replaceChildren(...((v && v.controls) || []).map((c) => el("option", { value: c.name }, c.title || c.name)));
    const levels = (v && v.levels) || [];
    if (levels.length) {
      const chosen = $("level").value || "normal";
      $("level").replaceChildren(...levels.map((l) => el("option", { value: l.name, selected: l.name === chosen }, l.title || l.name)));
    }
  }

  async function loadVariants() {
    const r = await api("GET", "/api/v1/variants");
    if (!r.ok) {
      status(QB.errorText(r), "error");
      return;
    }
    variants = r.data || [];
    $("variant").replaceChildren(...variants.map((v) => el("option", { value: v.name }, v.title || v.name)));
    fillControls();
  }

  async function create(ev) {
    ev.preventDefault();
    const form = $("new-game");
    const bot = form.elements.opponent.value === "bot" ? $("level").value : "";
    $("create").disabled = true;
    status(t("lobby.creating"));
    const r = await api("POST", "/api/v1/games", { variant: $("variant").value, control: $("control").value, bot });
    $("create").disabled = false;
    if (r.ok && r.data && r.data.id) {
      location.assign("/play/" + r.data.id);
      return;
    }
    status(r.ok ? "" : QB.errorText(r), r.ok ? "" : "error");
  }

  async function logout(path) {
    const r = await api("POST", path);
    if (!r.ok && r.status !== 401) {
      status(QB.errorText(r), "error");
      return;
    }
    $("lobby").hidden = true;
    $("logout").hidden = $("logout-all").hidden = true;
    $("who").textContent = "";
    $("login-hint").hidden = false;
    status(t("lobby.loggedOut"));
  }

  (async () => {
    const me = await QB.loadMe();
    if (!me) {
      $("login-hint").hidden = false;
      return;
    }
    $("who").textContent = me.user.name;
    $("logout").hidden = $("logout-all").hidden = false;
    $("lobby").hidden = false;
    $("variant").addEventListener("change", fillControls);
    for (const r of document.querySelectorAll('input[name="opponent"]')) {
      r.addEventListener("change", () => { $("level").disabled = $("new-game").elements.opponent.value !== "bot"; });
    }
    $("new-game").addEventListener("submit", create);
    $("logout").addEventListener("click", () => logout("/logout"));
    $("logout-all").addEventListener("click", () => logout("/logout/all"));
    // Coming back to the tab shows the games as they are now.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !$("lobby").hidden) loadLists();
    });
    await Promise.all([loadLists(), loadVariants()]);
  })();
})();
