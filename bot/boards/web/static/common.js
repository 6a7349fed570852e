"use strict";
// QB holds what the pages share: their words (from the server), the calls to the JSON API
// (with the session cookie and the CSRF token) and the status line.
const QB = (() => {
  // The words come from the bot's catalogue: the server makes /static/words.js of it, in every
  // language, and the page loads it first (pages.go). Without it, the page shows the keys.
  const texts = (typeof QB_WORDS === "object" && QB_WORDS) || {};
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
    const s = (texts[lang] && texts[lang][key]) || (texts.en && texts.en[key]) || key;
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
          refusal = texts[lang] && texts[lang]["err." + r.error.code] ? t("err." + r.error.code) : r.error.message;
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
