"use strict";
// The archive of a player's finished games (/players/<id>/games): the filters are the form's
// and the address's, the games come a page at a time from the API, the next page by the cursor
// of the last. Names are set as text, never markup.
(() => {
  const { api, el, status, t } = QB;
  const $ = (id) => document.getElementById(id);
  const user = location.pathname.split("/")[2];
  const fields = ["variant", "result", "opponent", "control", "from", "to"];
  let next = "";

  // query is the filters of the form as an address's query.
  function query() {
    const q = new URLSearchParams();
    for (const f of fields) if ($(f).value) q.set(f, $(f).value);
    return q;
  }

  function entry(g) {
    const change = g.rating ? " · " + t("archive.rating", { after: g.rating.after, change: (g.rating.change >= 0 ? "+" : "") + g.rating.change }) : "";
    const who = g.opponent.id
      ? el("a", { href: "/players/" + g.opponent.id + "/games" }, g.opponent.name)
      : el("span", {}, g.opponent.name);
    return el("li", { class: "game result-" + g.result },
      el("a", { href: "/play/" + g.id, class: "title" }, g.title + " · " + g.control_title),
      el("span", { class: "who" }, who),
      el("span", { class: "state" }, g.result_text + change),
      el("span", { class: "badge" }, new Date(g.ended).toLocaleDateString(QB.lang)),
      el("a", { href: g.export, class: "export" }, t("archive.export")));
  }

  async function load(more) {
    const q = query();
    if (more && next) q.set("cursor", next);
    const r = await api("GET", "/api/v1/players/" + encodeURIComponent(user) + "/games?" + q);
    if (!r.ok) {
      if (r.status === 401) $("login-hint").hidden = false;
      status(QB.errorText(r), "error");
      return;
    }
    const d = r.data;
    if (d.player.name) {
      $("heading").textContent = t("archive.of", { name: d.player.name });
      document.title = $("heading").textContent;
    }
    const opp = $("opponent");
    for (const o of d.opponents) {
      if (![...opp.options].some((x) => x.value === String(o.id))) opp.append(el("option", { value: o.id }, o.name));
    }
    const items = d.games.map(entry);
    if (more) $("games").append(...items); else $("games").replaceChildren(...items);
    next = d.next;
    $("more").hidden = !next;
    $("empty").hidden = $("games").children.length > 0;
    $("export-all").href = "/api/v1/players/" + encodeURIComponent(user) + "/games/export?" + query();
    $("archive").hidden = false;
    status("");
  }

  async function main() {
    const me = await QB.loadMe();
    if (!me) {
      $("login-hint").hidden = false;
      return;
    }
    const v = await api("GET", "/api/v1/variants");
    if (v.ok) {
      const controls = new Map();
      for (const g of v.data) {
        $("variant").append(el("option", { value: g.name }, g.title));
        for (const c of g.controls) controls.set(c.name, c.title);
      }
      for (const [name, title] of controls) $("control").append(el("option", { value: name }, title));
    }
    const q = new URLSearchParams(location.search);
    for (const f of fields) {
      const val = q.get(f);
      if (!val) continue;
      if ($(f).tagName === "SELECT" && ![...$(f).options].some((x) => x.value === val)) $(f).append(el("option", { value: val }, val));
      $(f).value = val;
    }
    $("filters").addEventListener("submit", (ev) => {
      ev.preventDefault();
      history.replaceState(null, "", location.pathname + "?" + query());
      load(false);
    });
    $("more").addEventListener("click", () => load(true));
    load(false);
  }
  main();
})();
