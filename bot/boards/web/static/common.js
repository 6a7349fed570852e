"use strict";
// QB holds what both pages share: the texts in English and Russian, the calls to the JSON API
// (with the session cookie and the CSRF token) and the status line.
const QB = (() => {
  const texts = {
    en: {
      "nav.lobby": "← Games",
      "live.on": "live", "live.off": "offline",
      "lobby.title": "Games", "lobby.logout": "Log out", "lobby.logoutAll": "Log out everywhere",
      "lobby.mine": "My games", "lobby.waiting": "Waiting for an opponent", "lobby.new": "New game",
      "lobby.noGames": "No games yet.", "lobby.noWaiting": "Nobody is waiting.",
      "lobby.variant": "Game", "lobby.control": "Time control", "lobby.opponent": "Opponent",
      "lobby.person": "a person", "lobby.bot": "the bot", "lobby.start": "Start",
      "lobby.yourTurn": "your turn", "lobby.vs": "against {name}", "lobby.nobody": "no opponent yet",
      "lobby.loggedOut": "Logged out.", "lobby.creating": "Starting the game…",
      "status.waiting": "waiting for an opponent", "status.active": "in play",
      "status.finished": "finished", "status.aborted": "aborted",
      "turn.you": "Your move.", "turn.other": "{name} to move.", "turn.waiting": "Waiting for an opponent.",
      "turn.side": "{name} to move.",
      "you": "you", "bot": "bot", "nobody": "—",
      "news.move": "New move: {moves}",
      "offer.mine": "You offered a draw.", "offer.theirs": "{name} offers a draw.",
      "act.join": "Join", "act.undo": "Undo", "act.drawOffer": "Offer a draw",
      "act.drawAccept": "Accept the draw", "act.drawDecline": "Decline the draw", "act.resign": "Resign",
      "act.spectators": "Allow spectators", "act.export": "Export the moves", "act.cancel": "Cancel",
      "resign.confirm": "Resign this game?", "resign.yes": "Yes, resign", "resign.no": "No, play on",
      "moves.title": "Moves", "choose": "Choose the move:",
      "sending": "Sending…", "spectating": "You are watching this game.",
      "err.login": "Not logged in: send /web to the bot for a login link.",
      "err.stale": "The board has changed: here it is again.",
      "err.illegal": "{message} Legal moves: {moves}.",
      "err.rate": "Too many requests: wait a moment.",
      "err.network": "The server cannot be reached.",
      "err.notFound": "There is no such game.",
      "err.forbidden": "This game is not open to you.",
      "err.miniapp_invalid": "Telegram gave this page no login data: open the game from its button in Telegram.",
      "err.miniapp_forged": "The login data is not signed by this bot: open the game from its button in Telegram.",
      "err.miniapp_stale": "The login data is out of date: close this page and open it again from the button in Telegram.",
      "err.miniapp_replayed": "This login was used already: close this page and open it again from the button in Telegram.",
      "err.miniapp_unknown_user": "You have not talked to this bot yet: send it /start in Telegram, then open the game again.",
    },
    ru: {
      "nav.lobby": "← Игры",
      "live.on": "на связи", "live.off": "нет связи",
      "lobby.title": "Игры", "lobby.logout": "Выйти", "lobby.logoutAll": "Выйти везде",
      "lobby.mine": "Мои игры", "lobby.waiting": "Ждут соперника", "lobby.new": "Новая игра",
      "lobby.noGames": "Игр пока нет.", "lobby.noWaiting": "Никто не ждёт.",
      "lobby.variant": "Игра", "lobby.control": "Контроль времени", "lobby.opponent": "Соперник",
      "lobby.person": "человек", "lobby.bot": "бот", "lobby.start": "Начать",
      "lobby.yourTurn": "ваш ход", "lobby.vs": "против {name}", "lobby.nobody": "соперника пока нет",
      "lobby.loggedOut": "Вы вышли.", "lobby.creating": "Начинаем игру…",
      "status.waiting": "ждёт соперника", "status.active": "идёт",
      "status.finished": "окончена", "status.aborted": "прервана",
      "turn.you": "Ваш ход.", "turn.other": "Ходит {name}.", "turn.waiting": "Ждём соперника.",
      "turn.side": "Ходит {name}.",
      "you": "вы", "bot": "бот", "nobody": "—",
      "news.move": "Новый ход: {moves}",
      "offer.mine": "Вы предложили ничью.", "offer.theirs": "{name} предлагает ничью.",
      "act.join": "Присоединиться", "act.undo": "Отменить ход", "act.drawOffer": "Предложить ничью",
      "act.drawAccept": "Согласиться на ничью", "act.drawDecline": "Отклонить ничью", "act.resign": "Сдаться",
      "act.spectators": "Пускать зрителей", "act.export": "Скачать запись партии", "act.cancel": "Отмена",
      "resign.confirm": "Сдать эту партию?", "resign.yes": "Да, сдаюсь", "resign.no": "Нет, играю дальше",
      "moves.title": "Ходы", "choose": "Выберите ход:",
      "sending": "Отправляем…", "spectating": "Вы смотрите эту партию.",
      "err.login": "Вы не вошли: отправьте боту /web, он пришлёт ссылку для входа.",
      "err.stale": "Позиция изменилась: вот она.",
      "err.illegal": "{message} Возможные ходы: {moves}.",
      "err.rate": "Слишком много запросов: подождите немного.",
      "err.network": "Сервер недоступен.",
      "err.notFound": "Такой игры нет.",
      "err.forbidden": "Эта игра вам не открыта.",
      "err.miniapp_invalid": "Telegram не передал странице данные для входа: откройте игру кнопкой в Telegram.",
      "err.miniapp_forged": "Данные для входа подписаны не этим ботом: откройте игру кнопкой в Telegram.",
      "err.miniapp_stale": "Данные для входа устарели: закройте страницу и откройте её снова кнопкой в Telegram.",
      "err.miniapp_replayed": "Этот вход уже использован: закройте страницу и откройте её снова кнопкой в Telegram.",
      "err.miniapp_unknown_user": "Вы ещё не писали этому боту: отправьте ему /start в Telegram и откройте игру снова.",
    },
  };
  let lang = "en";
  let csrf = "";
  let loggedIn = false;
  // refusal is why the server refused the Mini App's login, shown instead of the /web hint.
  let refusal = "";

  // miniApp is the page opened inside Telegram as a Mini App: data is the initData Telegram
  // signed for its user (from Telegram's script, window.Telegram.WebApp, when the page has it,
  // else from the address's fragment, #tgWebAppData=..., where Telegram puts it), "" otherwise.
  // Without Telegram's script the page makes the same window.Telegram.WebApp itself, whose
  // ready, expand and close post their events to the Telegram client as its script would.
  const miniApp = (() => {
    let tg = window.Telegram && window.Telegram.WebApp;
    let data = (tg && tg.initData) || "";
    if (!data) {
      try { data = new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") || ""; } catch (e) { data = ""; }
    }
    if (!data) return { data: "", user: null, ready() {} };
    if (!tg) {
      const unsafe = {};
      for (const [k, v] of new URLSearchParams(data)) {
        if (k === "user") { try { unsafe.user = JSON.parse(v); } catch (e) { /* left out */ } } else unsafe[k] = v;
      }
      const post = (type, payload) => {
        const body = JSON.stringify(payload || {});
        if (window.TelegramWebviewProxy && window.TelegramWebviewProxy.postEvent) {
          window.TelegramWebviewProxy.postEvent(type, body);
        } else if (window.parent !== window) {
          window.parent.postMessage(JSON.stringify({ eventType: type, eventData: payload || {} }), "*");
        }
      };
      tg = {
        initData: data, initDataUnsafe: unsafe,
        ready() { post("web_app_ready"); }, expand() { post("web_app_expand"); }, close() { post("web_app_close"); },
      };
      window.Telegram = Object.assign(window.Telegram || {}, { WebApp: tg });
    }
    const user = (tg.initDataUnsafe && tg.initDataUnsafe.user) || null;
    return { data, user, ready() { tg.ready(); tg.expand(); } };
  })();

  // t returns the text of key in the page's language, with {name} replaced from vars.
  function t(key, vars) {
    const s = (texts[lang] && texts[lang][key]) || texts.en[key] || key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (vars && k in vars ? String(vars[k]) : m));
  }

  // setLang picks Russian for a language code starting with "ru", English otherwise, and
  // translates the elements marked with data-t.
  function setLang(code) {
    lang = String(code || "").toLowerCase().startsWith("ru") ? "ru" : "en";
    document.documentElement.lang = lang;
    for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  }

  // api calls the JSON API and resolves to {ok, status, data} or {ok: false, status, error},
  // error being the API's {code, message, ...}; it never rejects.
  async function api(method, path, body) {
    // The server words the refusals a page shows as they are in the page's language.
    const opts = { method, credentials: "same-origin", headers: { Accept: "application/json", "Accept-Language": lang } };
    if (method !== "GET") {
      opts.headers["X-CSRF-Token"] = csrf;
      if (body !== undefined) {
        opts.headers["Content-Type"] = "application/json";
        opts.body = JSON.stringify(body);
      }
    }
    let resp;
    try {
      resp = await fetch(path, opts);
    } catch (e) {
      return { ok: false, status: 0, error: { code: "network", message: t("err.network") } };
    }
    let data = null;
    if ((resp.headers.get("Content-Type") || "").includes("json")) {
      try { data = await resp.json(); } catch (e) { data = null; }
    }
    if (resp.ok) return { ok: true, status: resp.status, data };
    const error = (data && data.error) || { code: "http", message: `${resp.status} ${resp.statusText}` };
    return { ok: false, status: resp.status, error };
  }

  // errorText words a failed call for the status line.
  function errorText(r) {
    switch (r.status) {
      case 401: return refusal || t("err.login");
      // A game nobody may see without a login is answered as a missing one: say how to log in.
      case 404: return (r.error.message || t("err.notFound")) + (loggedIn ? "" : " " + (refusal || t("err.login")));
      case 429: return t("err.rate");
      default: return r.error.message || r.error.code;
    }
  }

  // loadMe asks who is logged in, takes the CSRF token and the language, and resolves to the
  // answer of /api/v1/me, or null when nobody is. A Mini App logs its user in first with the
  // data Telegram gave it, unless the session of the page's cookie is already theirs (the page
  // opened again, or reloaded: the same data is accepted once).
  async function loadMe() {
    let r = await api("GET", "/api/v1/me");
    if (miniApp.data) {
      const mine = r.ok && r.data && r.data.user && miniApp.user && r.data.user.id === miniApp.user.id;
      if (!mine) {
        r = await api("POST", "/api/v1/miniapp/login", { init_data: miniApp.data });
        if (!r.ok && r.status === 401) {
          setLang((miniApp.user && miniApp.user.language_code) || navigator.language);
          refusal = texts[lang]["err." + r.error.code] ? t("err." + r.error.code) : r.error.message;
          status(refusal, "error");
        }
      }
      miniApp.ready();
    }
    if (r.ok && r.data && r.data.user) {
      loggedIn = true;
      csrf = r.data.csrf || "";
      setLang(r.data.user.lang);
      return r.data;
    }
    if (!refusal) setLang(navigator.language);
    return null;
  }

  // status shows text in the status line; kind is "", "error" or "warn".
  function status(text, kind) {
    const e = document.getElementById("status");
    e.textContent = text || "";
    e.className = "status" + (kind ? " " + kind : "");
  }

  // el makes an element with attributes and children (strings become text, never markup).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  return { t, setLang, api, errorText, loadMe, status, el, get lang() { return lang; }, get miniApp() { return !!miniApp.data; } };
})();
