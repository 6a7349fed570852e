"use strict";
// After the game, on a game's page (/play/<id>): each player's rating change, the rematch (offer,
// accept, decline or withdraw, go to it), a new opponent (the same game and clock sought anew,
// then the lobby) and the players' archives, drawn into a panel of its own below the result.
(() => {
  const { api, el, status, t } = QB;
  const id = location.pathname.split("/")[2];
  let panel = null;
  let shown = "";
  // asked: the player pressed a button of the rematch on this page.
  let asked = false;

  // post makes a call of the rematch, whose answer is the game's state, drawn at once.
  async function post(path, body) {
    const r = await api("POST", path, body);
    if (!r.ok) status(QB.errorText(r), "error");
    else if (r.data && r.data.after) show(r.data, true);
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
        acts.push(button("after.withdraw", () => post(`/api/v1/games/${id}/rematch/decline`)));
      } else {
        parts.push(el("p", {}, t("after.rematchOffer", { name: st.seats[rm.offered_by].name })));
        acts.push(button("after.accept", () => post(`/api/v1/games/${id}/rematch/accept`), "primary"));
        acts.push(button("after.decline", () => post(`/api/v1/games/${id}/rematch/decline`)));
      }
    } else if (a.can_rematch) {
      acts.push(button("after.rematch", () => post(`/api/v1/games/${id}/rematch`), "primary"));
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

  // show draws the state of a finished game; a rematch accepted after the player's own press
  // (theirs, or the opponent's answer to their offer) goes on to the new game.
  function show(st, answered) {
    if (!st.after) return;
    if (answered) asked = true;
    const rm = st.after.rematch;
    if (rm && rm.state === "accepted" && asked) {
      location.href = "/play/" + rm.id;
      return;
    }
    const key = JSON.stringify(st.after);
    if (key === shown) return;
    shown = key;
    draw(st);
  }

  function main() {
    const result = document.getElementById("result");
    if (!result || !/^\d+$/.test(id || "")) return;
    panel = el("section", { id: "after", class: "after", hidden: true });
    result.after(panel);
    // The page's script hands over every state it draws (play.js): the first load and each
    // event of the game, a rematch offered or answered among them (its events reach this
    // game's stream), so this panel costs no fetch of its own.
    document.addEventListener("qb:state", (ev) => show(ev.detail, false));
  }
  main();
})();
