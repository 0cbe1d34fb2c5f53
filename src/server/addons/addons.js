/*
 * Lectern's reader addons (issue 39, docs/addons.md): the script every
 * HTML page the docs host serves loads, written here (the hosted service's
 * client is another project's code). It reads /_/addons/ once, hands the
 * data to the page's theme the way the service's client does (the event
 * "readthedocs-addons-data-ready", whose detail.data() is the JSON, and
 * window.ReadTheDocsEventData), and draws what the project left on:
 *
 *   flyout         the versions (same page), languages, downloads, search
 *                  and the project's pages, in a corner
 *   notifications  latest (development) version, not the stable version,
 *                  pull-request build
 *   search         "/" (or a theme's readthedocs-search-show event) opens a
 *                  modal asking the server's search API as the reader types
 *   linkpreviews   hovering a link to another page of the docs shows the
 *                  target's section (the embed API)
 *   doc_diff       "d" marks the blocks added and removed since the base
 *                  version's same page
 *
 * Everything it draws lives in shadow roots, so the page's styles and
 * scripts and ours leave each other alone; it asks nothing but this host,
 * and does nothing in a browser that lacks what it needs.
 */
(function () {
  "use strict";

  var CLIENT_VERSION = "lectern-1";
  var SEARCH_DELAY_MS = 120;
  var PREVIEW_DELAY_MS = 350;
  /* Block pairs the diff compares at most (an LCS table of this many
   * cells): far more than a long page's paragraphs. */
  var DIFF_MAX_CELLS = 4000000;

  if (!window.fetch || !window.Promise || !window.CustomEvent ||
      !document.documentElement.attachShadow || !window.DOMParser ||
      window.__lecternAddons) {
    return;
  }
  window.__lecternAddons = true;

  var CSS = [
    ":host{all:initial;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;",
    "--accent:#0969da;--warn:#fff8c5;--warnline:#d4a72c;--hl:#fff3b0;",
    "font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg)}",
    "@media (prefers-color-scheme:dark){:host{--bg:#161b22;--fg:#e6edf3;",
    "--muted:#9198a1;--line:#3d444d;--accent:#4493f8;--warn:#3b2e00;",
    "--warnline:#9e6a03;--hl:#5c4a00}}",
    "*{box-sizing:border-box}",
    "a{color:var(--accent);text-decoration:none}a:hover,a:focus{text-decoration:underline}",
    "button{font:inherit;color:inherit;cursor:pointer}",
    ".panel{background:var(--bg);border:1px solid var(--line);border-radius:6px;",
    "box-shadow:0 4px 16px rgba(0,0,0,.2)}",
    ".flyout{position:fixed;z-index:2147483000;max-width:20em}",
    ".bottom-right{right:1em;bottom:1em}.bottom-left{left:1em;bottom:1em}",
    ".top-right{right:1em;top:1em}.top-left{left:1em;top:1em}",
    ".toggle{display:block;width:100%;text-align:left;padding:.4em .8em;",
    "background:var(--bg);border:1px solid var(--line);border-radius:6px}",
    ".menu{margin-bottom:.4em;padding:.6em .8em;max-height:70vh;overflow:auto}",
    ".top-right .menu,.top-left .menu{margin:.4em 0 0}",
    "dl{margin:0 0 .6em}dt{color:var(--muted);font-size:12px;margin-top:.4em}",
    "dd{display:inline-block;margin:.1em .5em .1em 0}",
    "dd.current a{font-weight:700;color:var(--fg)}",
    "input[type=search]{font:inherit;width:100%;padding:.4em;color:var(--fg);",
    "background:var(--bg);border:1px solid var(--line);border-radius:4px}",
    /* Above the flyout's corner, not in the top right, where themes put
     * their own buttons (furo's theme toggle). */
    ".notice{position:fixed;z-index:2147482999;bottom:4em;right:1em;max-width:26em;",
    "padding:.7em 2.2em .7em .9em;background:var(--warn);border-color:var(--warnline)}",
    ".notice strong{display:block;margin-bottom:.2em}",
    ".close{position:absolute;top:.3em;right:.4em;border:0;background:none;",
    "font-size:18px;line-height:1;padding:.2em}",
    ".overlay{position:fixed;z-index:2147483001;inset:0;background:rgba(0,0,0,.45);",
    "display:flex;justify-content:center;align-items:flex-start;padding-top:10vh}",
    ".modal{width:min(44em,94vw);max-height:76vh;display:flex;flex-direction:column;padding:.8em}",
    ".results{overflow:auto;margin:.6em 0 0;padding:0;list-style:none}",
    ".results li{border-top:1px solid var(--line)}",
    ".results a{display:block;padding:.5em .4em;color:var(--fg)}",
    ".results a.active,.results a:hover{background:var(--hl);text-decoration:none}",
    ".results .title{font-weight:600}.results .section{color:var(--accent)}",
    ".results .content{display:block;color:var(--muted);font-size:13px}",
    ".results span span,.hit{background:var(--hl);color:inherit}",
    ".status{color:var(--muted);font-size:12px;margin-top:.5em}",
    "label{font-size:12px;color:var(--muted);display:inline-block;margin-top:.4em}",
    ".preview{position:fixed;z-index:2147483002;width:min(32em,90vw);max-height:18em;",
    "overflow:hidden;padding:.6em .8em;font-size:13px}",
    ".preview pre{white-space:pre-wrap;font-size:12px}",
    ".preview img{max-width:100%}",
    "@media (prefers-reduced-motion:no-preference){.panel{transition:opacity .12s}}"
  ].join("");

  /* The page-level marks of the visual diff (they style the page's own
   * blocks, so they cannot live in a shadow root). */
  var PAGE_CSS =
    ".lectern-diff-added{background:rgba(46,160,67,.18);outline:2px solid rgba(46,160,67,.5)}" +
    ".lectern-diff-removed{background:rgba(248,81,73,.15);outline:2px solid rgba(248,81,73,.5);" +
    "text-decoration:line-through}";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (key === "text") node.textContent = attrs[key];
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), attrs[key]);
      else node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  /* A shadow root of our own on a host element appended to the body. */
  function shadowHost(name) {
    var host = el("lectern-" + name, { "data-lectern-addon": name });
    var root = host.attachShadow({ mode: "open" });
    root.appendChild(el("style", { text: CSS }));
    document.body.appendChild(host);
    return root;
  }

  /* The search API's highlights are its own HTML: <span> around the
   * words, everything else escaped. Anything else is shown as text. */
  function highlighted(html) {
    var span = el("span");
    span.innerHTML = String(html).replace(/<(?!\/?span>)/g, "&lt;");
    return span;
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" ||
      (target && target.isContentEditable);
  }

  /* A page of another version or language: its root plus this page's
   * file (the service's resolver filename), "index.html" left off. */
  function samePage(root, data) {
    var file = data.readthedocs.resolver.filename || "/";
    file = file.replace(/^\//, "").replace(/(^|\/)index\.html$/, "$1");
    return root + file;
  }

  /* Data ------------------------------------------------------------------ */

  function apiVersion() {
    var meta = document.querySelector("meta[name='readthedocs-addons-api-version']");
    return (meta && meta.content) || "1";
  }

  function load() {
    var query = "api-version=" + encodeURIComponent(apiVersion()) +
      "&client-version=" + CLIENT_VERSION +
      "&url=" + encodeURIComponent(window.location.href);
    return fetch("/_/addons/?" + query, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; });
  }

  function announce(data) {
    var detail = {
      data: function () { return data; },
      initialize: function () {}
    };
    window.ReadTheDocsEventData = detail;
    document.dispatchEvent(new CustomEvent("readthedocs-addons-data-ready",
                                           { detail: detail }));
  }

  /* Flyout ---------------------------------------------------------------- */

  function flyout(data) {
    var conf = data.addons.flyout;
    var current = data.versions.current;
    var project = data.projects.current;
    var root = shadowHost("flyout");
    var box = el("div", { "class": "flyout " + (conf.position || "bottom-right") });
    var menu = el("div", { "class": "menu panel", id: "menu", hidden: "" });
    var toggle = el("button", {
      "class": "toggle", "aria-expanded": "false", "aria-controls": "menu",
      text: project.slug + " \u00b7 " + (current ? current.slug : "?") + " \u25be"
    });

    function group(title, items) {
      items = items.filter(Boolean);
      if (!items.length) return null;
      return el("dl", {}, [el("dt", { text: title })].concat(items));
    }
    /* Nothing for what the data has no name or address for (a preview's
     * working tree has no language and no dashboard). */
    function item(text, href, isCurrent) {
      if (!text || !href) return null;
      return el("dd", isCurrent ? { "class": "current" } : {},
                [el("a", { href: href, text: text })]);
    }
    function close() {
      menu.hidden = true;
      toggle.setAttribute("aria-expanded", "false");
    }

    var versions = data.versions.active.map(function (v) {
      return item(v.slug, samePage(v.urls.documentation, data),
                  current && v.slug === current.slug);
    });
    var languages = [item(project.language.code, samePage(
      current ? current.urls.documentation : project.urls.documentation, data), true)]
      .concat(data.projects.translations.map(function (t) {
        return item(t.language.code, samePage(t.urls.documentation, data));
      }));
    var downloads = Object.keys((current && current.downloads) || {})
      .filter(function (k) { return current.downloads[k]; })
      .map(function (k) { return item(k, current.downloads[k]); });
    var search = el("input", { type: "search", placeholder: "Search docs",
                               "aria-label": "Search docs" });
    search.addEventListener("keydown", function (e) {
      if (e.key === "Enter") { close(); openSearch(data, search.value, toggle); }
    });
    var pages = [item("Project", project.urls.home), item("Builds", project.urls.builds)];
    if (current && current.urls.dashboard) pages.push(item("Edit version", current.urls.dashboard.edit));

    [group("Versions", versions), group("Languages", languages),
     group("Downloads", downloads),
     data.addons.search.enabled ? group("Search", [search]) : null,
     group("On Lectern", pages)].forEach(function (g) { if (g) menu.appendChild(g); });

    toggle.addEventListener("click", function () {
      var open = menu.hidden;
      menu.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open) { var first = menu.querySelector("dd.current a, a"); if (first) first.focus(); }
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && !menu.hidden) { close(); toggle.focus(); }
    });
    document.addEventListener("click", function (e) {
      if (!menu.hidden && e.composedPath().indexOf(box) < 0) close();
    });
    if (conf.position && conf.position.indexOf("top") === 0) {
      box.appendChild(toggle); box.appendChild(menu);
    } else {
      box.appendChild(menu); box.appendChild(toggle);
    }
    root.appendChild(box);
  }

  /* Notifications --------------------------------------------------------- */

  function notice(data) {
    var conf = data.addons.notifications;
    var current = data.versions.current;
    var stable = data.versions.active.filter(function (v) { return v.slug === "stable"; })[0];
    var title, text, link;

    if (!current) return;
    if (current.type === "external") {
      if (!conf.show_on_external) return;
      title = "This page was built from a pull request";
      text = "It is not the documentation of any released version.";
    } else if (current.slug === "latest") {
      if (!conf.show_on_latest) return;
      title = "You are reading the latest (development) version";
      text = "It may describe what is not released yet.";
    } else if (current.slug !== "stable") {
      if (!conf.show_on_non_stable || !stable) return;
      title = "This is not the stable version";
      text = "You are reading the documentation of " + current.verbose_name + ".";
    } else {
      return;
    }
    if (stable && current.slug !== "stable") {
      link = el("a", { href: samePage(stable.urls.documentation, data),
                       text: "Read this page in the stable version" });
    }
    var key = "lectern-addons-notice:" + data.projects.current.slug + "/" + current.slug;
    try { if (window.sessionStorage.getItem(key)) return; } catch (e) { /* no storage */ }
    var root = shadowHost("notification");
    var box = el("div", { "class": "notice panel", role: "status" }, [
      el("strong", { text: title }), el("span", { text: text + " " }), link,
      el("button", { "class": "close", "aria-label": "Close", text: "\u00d7",
                     onclick: function () {
                       box.remove();
                       try { window.sessionStorage.setItem(key, "1"); } catch (e) { /* none */ }
                     } })
    ]);
    root.appendChild(box);
  }

  /* Search ---------------------------------------------------------------- */

  var searchRoot = null;

  function openSearch(data, initial, returnTo) {
    var conf = data.addons.search;
    var back = returnTo || document.activeElement;
    if (!searchRoot) searchRoot = shadowHost("search");
    if (searchRoot.querySelector(".overlay")) return;
    var input = el("input", { type: "search", placeholder: "Search the docs",
                              "aria-label": "Search the docs", autocomplete: "off" });
    var list = el("ul", { "class": "results", role: "listbox" });
    var status = el("div", { "class": "status", "aria-live": "polite" });
    var filters = (conf.filters || []).map(function (f) {
      var box = el("input", { type: "checkbox" });
      box.checked = !!f[2];
      box.addEventListener("change", function () { run(); });
      return { query: f[1], box: box, label: el("label", {}, [box, document.createTextNode(" " + f[0])]) };
    });
    var modal = el("div", { "class": "modal panel", role: "dialog", "aria-modal": "true",
                            "aria-label": "Search" },
                   [input].concat(filters.map(function (f) { return f.label; }), [status, list]));
    var overlay = el("div", { "class": "overlay" }, [modal]);
    var timer = null, pending = null, active = -1;

    function close() {
      overlay.remove();
      if (back && back.focus) back.focus();
    }
    function links() { return list.querySelectorAll("a"); }
    function select(i) {
      var all = links();
      if (!all.length) return;
      active = (i + all.length) % all.length;
      Array.prototype.forEach.call(all, function (a, j) {
        a.classList.toggle("active", j === active);
        a.setAttribute("aria-selected", String(j === active));
      });
      all[active].scrollIntoView({ block: "nearest" });
    }
    function filterQuery() {
      var chosen = filters.filter(function (f) { return f.box.checked; });
      return chosen.length ? chosen[chosen.length - 1].query : conf.default_filter;
    }
    function show(body) {
      list.textContent = "";
      active = -1;
      (body.results || []).forEach(function (r) {
        var base = r.domain + r.path;
        var title = r.highlights && r.highlights.title && r.highlights.title.length
          ? highlighted(r.highlights.title[0]) : el("span", { text: r.title });
        var a = el("a", { href: base, role: "option" },
                   [el("span", { "class": "title" }, [title])]);
        list.appendChild(el("li", {}, [a]));
        (r.blocks || []).slice(0, 3).forEach(function (b) {
          var hl = b.highlights || {};
          var sec = el("a", { href: base + (b.id ? "#" + b.id : ""), role: "option" }, [
            el("span", { "class": "section" },
               [hl.title && hl.title.length ? highlighted(hl.title[0]) : el("span", { text: b.title || "" })]),
            el("span", { "class": "content" },
               [hl.content && hl.content.length ? highlighted(hl.content[0])
                                                 : el("span", { text: (b.content || "").slice(0, 160) })])
          ]);
          list.appendChild(el("li", {}, [sec]));
        });
      });
      status.textContent = body.count ? body.count + " pages" : "No results";
    }
    function run() {
      var words = input.value.trim();
      if (pending) pending.abort();
      if (!words) { list.textContent = ""; status.textContent = ""; return; }
      pending = window.AbortController ? new AbortController() : null;
      status.textContent = "Searching\u2026";
      fetch("/_/api/v3/search/?q=" + encodeURIComponent(filterQuery() + " " + words),
            { credentials: "same-origin", signal: pending ? pending.signal : undefined })
        .then(function (r) { return r.json(); })
        .then(show)
        .catch(function (e) { if (e.name !== "AbortError") status.textContent = "Search failed"; });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, SEARCH_DELAY_MS);
    });
    modal.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); close(); }
      else if (e.key === "ArrowDown") { e.preventDefault(); select(active + 1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); select(active - 1); }
      else if (e.key === "Enter" && e.target === input) {
        var all = links();
        if (all.length) { e.preventDefault(); window.location.href = all[Math.max(active, 0)].href; }
      } else if (e.key === "Tab") {
        /* Keep the focus inside the dialog. */
        var items = [input].concat(filters.map(function (f) { return f.box; }),
                                   Array.prototype.slice.call(links()));
        var at = items.indexOf(searchRoot.activeElement);
        e.preventDefault();
        items[(at + (e.shiftKey ? -1 : 1) + items.length) % items.length].focus();
      }
    });
    overlay.addEventListener("click", function (e) { if (e.target === overlay) close(); });
    searchRoot.appendChild(overlay);
    input.value = initial || "";
    input.focus();
    if (input.value) run();
  }

  /* Link previews ---------------------------------------------------------- */

  function mainContent(data) {
    var sel = data.addons.options.root_selector;
    return (sel && document.querySelector(sel)) ||
      document.querySelector("[role=main], main, article, .body, .document") ||
      document.body;
  }

  function linkPreviews(data) {
    var root = shadowHost("linkpreview");
    var scope = mainContent(data);
    var selector = data.addons.linkpreviews.selector;
    var box = null, timer = null, shown = null, cache = {};

    function hide() {
      clearTimeout(timer);
      if (box) { box.remove(); box = null; }
      shown = null;
    }
    function internal(a) {
      var url;
      try { url = new URL(a.href, window.location.href); } catch (e) { return false; }
      return url.origin === window.location.origin &&
        url.pathname.slice(0, 3) !== "/_/" &&
        !(url.pathname === window.location.pathname && !url.hash) &&
        !a.closest(".headerlink");
    }
    function place(a) {
      var r = a.getBoundingClientRect();
      var top = r.bottom + 6;
      if (top + 280 > window.innerHeight) top = Math.max(6, r.top - 290);
      box.style.top = top + "px";
      box.style.left = Math.max(6, Math.min(r.left, window.innerWidth - 520)) + "px";
    }
    function show(a, html) {
      hide();
      shown = a;
      box = el("div", { "class": "preview panel", role: "tooltip" });
      box.innerHTML = html;
      Array.prototype.forEach.call(box.querySelectorAll("script, style, link, .headerlink"), function (n) { n.remove(); });
      root.appendChild(box);
      place(a);
    }
    scope.addEventListener("mouseover", function (e) {
      var a = e.target.closest && e.target.closest(selector || "a[href]");
      if (!a || !scope.contains(a) || a === shown || !internal(a)) return;
      clearTimeout(timer);
      timer = setTimeout(function () {
        var url = new URL(a.href, window.location.href).href;
        var got = cache[url] || (cache[url] = fetch("/_/api/v3/embed/?url=" + encodeURIComponent(url),
                                                    { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : null; }));
        got.then(function (body) { if (body && body.content && a.matches(":hover")) show(a, body.content); });
      }, PREVIEW_DELAY_MS);
    });
    scope.addEventListener("mouseout", function (e) {
      var a = e.target.closest && e.target.closest("a[href]");
      if (a && !a.contains(e.relatedTarget)) hide();
    });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(); });
    window.addEventListener("scroll", hide, { passive: true });
  }

  /* Visual diff ----------------------------------------------------------- */

  var BLOCKS = "p, li, pre, h1, h2, h3, h4, h5, h6, dt, dd, blockquote, tr, figcaption";

  /* The innermost blocks of a content root, with their normalised text. */
  function blocks(root) {
    return Array.prototype.filter.call(root.querySelectorAll(BLOCKS), function (n) {
      return !n.querySelector(BLOCKS);
    }).map(function (n) {
      return { node: n, text: n.textContent.replace(/\s+/g, " ").replace(/\u00b6/g, "").trim() };
    }).filter(function (b) { return b.text; });
  }

  /* Pairs of equal blocks of a and b: a longest common subsequence. */
  function common(a, b) {
    var n = a.length, m = b.length, i, j, row, t = [];
    if (n * m > DIFF_MAX_CELLS) return null;
    for (i = 0; i <= n; i++) t.push(new Uint32Array(m + 1));
    for (i = n - 1; i >= 0; i--) {
      row = t[i];
      for (j = m - 1; j >= 0; j--) {
        row[j] = a[i].text === b[j].text ? t[i + 1][j + 1] + 1
          : Math.max(t[i + 1][j], row[j + 1]);
      }
    }
    var pairs = [];
    for (i = 0, j = 0; i < n && j < m;) {
      if (a[i].text === b[j].text) { pairs.push([i, j]); i++; j++; }
      else if (t[i + 1][j] >= t[i][j + 1]) i++;
      else j++;
    }
    return pairs;
  }

  var diffShown = null;

  function docDiff(data, say) {
    var conf = data.addons.doc_diff;
    if (diffShown) {
      diffShown.forEach(function (undo) { undo(); });
      diffShown = null;
      return say("Visual diff off");
    }
    if (!conf || !conf.base_url) return say("No base version to compare with");
    if (new URL(conf.base_url).pathname === window.location.pathname) {
      return say("This is the base version (" + (data.versions.current || {}).slug + ")");
    }
    // On a pull request's host the base is on the docs domain, which
    // lets this origin read it: asked afresh, since a copy the browser
    // kept from reading it there carries no such permission.
    var crossOrigin = new URL(conf.base_url).origin !== window.location.origin;
    fetch(conf.base_url, { credentials: "same-origin", cache: crossOrigin ? "no-store" : "default" }).then(function (r) {
      if (!r.ok) throw new Error("This page is not in the base version");
      return r.text();
    }).then(function (html) {
      var base = new DOMParser().parseFromString(html, "text/html");
      var sel = data.addons.options.root_selector;
      var baseRoot = (sel && base.querySelector(sel)) ||
        base.querySelector("[role=main], main, article, .body, .document") || base.body;
      var old = blocks(baseRoot), now = blocks(mainContent(data));
      var pairs = common(old, now);
      var undo = [], oi = 0, ni = 0, added = 0, removed = 0;
      if (!pairs) throw new Error("This page is too long to compare");
      if (!document.getElementById("lectern-diff-style")) {
        document.head.appendChild(el("style", { id: "lectern-diff-style", text: PAGE_CSS }));
      }
      pairs.concat([[old.length, now.length]]).forEach(function (p) {
        for (; ni < p[1]; ni++) {
          if (conf.show_additions === false) continue;
          now[ni].node.classList.add("lectern-diff-added");
          added++;
          undo.push((function (n) { return function () { n.classList.remove("lectern-diff-added"); }; })(now[ni].node));
        }
        for (; oi < p[0]; oi++) {
          var copy = document.importNode(old[oi].node, true);
          var anchor = now[Math.min(ni, now.length - 1)];
          copy.classList.add("lectern-diff-removed");
          if (!anchor) continue;
          if (ni < now.length) anchor.node.parentNode.insertBefore(copy, anchor.node);
          else anchor.node.parentNode.appendChild(copy);
          removed++;
          undo.push((function (n) { return function () { n.remove(); }; })(copy));
        }
        oi = p[0] + 1;
        ni = p[1] + 1;
      });
      diffShown = undo;
      say("Against " + conf.base_url.replace(/^https?:\/\/[^/]+/, "") + ": " + added +
          " added, " + removed + " removed (d to hide)");
    }).catch(function (e) { say(e.message); });
  }

  /* A short message at the bottom of the screen. */
  var toastRoot = null;
  function say(text) {
    if (!toastRoot) toastRoot = shadowHost("message");
    var old = toastRoot.querySelector(".notice");
    if (old) old.remove();
    var box = el("div", { "class": "notice panel", role: "status", text: text });
    box.style.right = "auto";
    box.style.left = "1em";
    box.style.bottom = "1em";
    toastRoot.appendChild(box);
    setTimeout(function () { box.remove(); }, 4000);
  }

  /* Start ------------------------------------------------------------------ */

  function start(data) {
    var addons = data.addons;
    announce(data);
    if (addons.flyout.enabled) flyout(data);
    if (addons.notifications.enabled) notice(data);
    if (addons.linkpreviews.enabled) linkPreviews(data);
    if (addons.search.enabled) {
      document.addEventListener("readthedocs-search-show", function () { openSearch(data); });
    }
    if (addons.hotkeys.enabled) {
      document.addEventListener("keydown", function (e) {
        if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) ||
            (e.composedPath()[0] && typing(e.composedPath()[0]))) return;
        if (e.code === addons.hotkeys.search.trigger && addons.search.enabled) {
          e.preventDefault();
          openSearch(data);
        } else if (e.code === addons.hotkeys.doc_diff.trigger && addons.doc_diff &&
                   addons.doc_diff.enabled) {
          e.preventDefault();
          docDiff(data, say);
        }
      });
    }
    document.documentElement.setAttribute("data-lectern-addons", "ready");
  }

  function boot() {
    load().then(function (data) {
      if (!data || data.api_version !== "1") return;
      if (window.self !== window.top && !data.addons.options.load_when_embedded) return;
      start(data);
    }).catch(function () { /* no addons, the page as it is */ });
  }

  /* After the page's own load: the addons never hold it up. */
  if (document.readyState === "complete") {
    boot();
  } else {
    window.addEventListener("load", boot);
  }
})();
