"use strict";
// After the game, on a game's page (/play/<id>): each player's rating change, the rematch (offer,
// accept, decline or withdraw, go to it), a new opponent (the same game and clock sought anew,
// then the lobby) and the players' archives. It reads the game's state itself when the page's state changes, and
// draws into a panel of its own below the result.
(() => {
  const { api, el, status, t } = QB;
  const id = location.pathname.split("/")[2];
  let panel = null;
  let shown = "";

  async function post(path, body) {
    const r = await api("POST", path, body);
    if (!r.ok) status(QB.errorText(r), "error");
    return r;
  }

  function button(key, onClick, cls) {
    const b = el("button", { type: "button", class: cls || "" }, t(key));
    b.addEventListener("click", onClick);
    return b;
  }

  function draw(st) {
    const a = st.after;
    const parts = [];
    a.ratings.forEach((r, seat) => {
      if (!r) return;
      const change = (r.change >= 0 ? "+" : "") + r.change;
      parts.push(el("p", { class: "rating-change" }, t("after.rating", { name: st.seats[seat].name, after: r.after, change })));
    });
    const rm = a.rematch;
    const acts = [];
    if (rm && rm.state === "accepted") {
      acts.push(el("a", { href: "/play/" + rm.id, class: "primary" }, t("after.open")));
    } else if (rm && rm.state === "declined") {
      parts.push(el("p", {}, t("after.declined")));
    } else if (rm && rm.state === "offered" && st.seat >= 0) {
      if (rm.offered_by === st.seat) {
        parts.push(el("p", {}, t("after.rematchWaiting")));
        acts.push(button("after.withdraw", () => post(`/api/v1/games/${id}/rematch/decline`).then(refresh)));
      } else {
        parts.push(el("p", {}, t("after.rematchOffer", { name: st.seats[rm.offered_by].name })));
        acts.push(button("after.accept", () => post(`/api/v1/games/${id}/rematch/accept`).then(refresh), "primary"));
        acts.push(button("after.decline", () => post(`/api/v1/games/${id}/rematch/decline`).then(refresh)));
      }
    } else if (a.can_rematch) {
      acts.push(button("after.rematch", () => post(`/api/v1/games/${id}/rematch`).then(refresh), "primary"));
    }
    if (a.new_opponent) {
      acts.push(button("after.newOpponent", async () => {
        const r = await post("/api/v1/games", a.new_opponent);
        if (r.ok) location.href = "/games";
      }));
    }
    if (acts.length) parts.push(el("div", { class: "actions" }, ...acts));
    a.archives.forEach((href, seat) => {
      if (href) parts.push(el("p", {}, el("a", { href }, t("archive.of", { name: st.seats[seat].name }))));
    });
    panel.replaceChildren(...parts);
    panel.hidden = parts.length === 0;
  }

  async function refresh() {
    // Only a finished game shows its result, and has what follows it.
    if (document.getElementById("result").hidden) return;
    const r = await api("GET", "/api/v1/games/" + id);
    if (!r.ok || !r.data.after) return;
    const key = JSON.stringify(r.data.after);
    if (key === shown) return;
    shown = key;
    // The rematch against the bot, or one just accepted: go on to it.
    const rm = r.data.after.rematch;
    if (rm && rm.state === "accepted" && panel.dataset.asked === "1") {
      location.href = "/play/" + rm.id;
      return;
    }
    draw(r.data);
  }

  function main() {
    const result = document.getElementById("result");
    if (!result || !/^\d+$/.test(id || "")) return;
    panel = el("section", { id: "after", class: "after", hidden: true });
    result.after(panel);
    panel.addEventListener("click", (ev) => {
      if (ev.target.tagName === "BUTTON") panel.dataset.asked = "1";
    });
    // The page shows the result when the game ends: look again then, and at each change of
    // the page's state (a rematch offered or answered reaches the page as an event of the game).
    new MutationObserver(refresh).observe(result, { attributes: true, childList: true, characterData: true, subtree: true });
    const moves = document.getElementById("moves");
    if (moves) new MutationObserver(refresh).observe(moves, { childList: true });
    setTimeout(refresh, 0);
  }
  main();
})();
