/* refdoc-site search box for a site built with Zensical (engine: zensical).
 *
 * Zensical's own search needs its index and its worker; this box talks to refdoc-site's
 * worker (search-worker.js) with the protocol Material's search box speaks, so the ranking
 * is the one the MkDocs site and `refdoc-site query` give: {type: 0} → {type: 1} ready;
 * {type: 2, data: query} → {type: 3, data: {items}}; {type: "refdoc-warm"} starts the
 * data loading, and {type: "refdoc-state"} reports it on <html data-refdoc-search>.
 *
 * Nothing loads before the box is about to be used (focus, a pointer over it, a touch).
 * The worker finds lunr.js in `lunr-host.js` (Material's search worker, which carries it),
 * named by the box's `data-lunr`. Every address is relative to the page.
 */
(function () {
  "use strict";

  // Material's message types, which search-worker.js answers.
  var MESSAGE = { setup: 0, ready: 1, query: 2, result: 3 };
  var box = document.querySelector("[data-refdoc-search-box]");
  if (!box) {
    return;
  }
  var input = box.querySelector("input");
  var output = box.querySelector(".refdoc-zsearch__output");
  var meta = box.querySelector(".refdoc-zsearch__meta");
  var list = box.querySelector("ol");
  var base = new URL(box.getAttribute("data-base") || ".", location.href);
  if (!/\/$/.test(base.pathname)) {
    base = new URL(base.href + "/");
  }
  var translations = {};
  try {
    translations = JSON.parse(document.getElementById("__config").textContent).translations || {};
  } catch (error) {
    translations = {};
  }
  var worker = null;
  var ready = false;
  var waiting = null;
  var selected = -1;

  function start() {
    if (worker) {
      return;
    }
    var url = new URL(box.getAttribute("data-worker"), location.href);
    url.searchParams.set("material", new URL(box.getAttribute("data-lunr"), location.href).href);
    worker = new Worker(url);
    worker.addEventListener("message", receive);
    worker.postMessage({ type: MESSAGE.setup, data: {} });
    worker.postMessage({ type: "refdoc-warm" });
  }

  function receive(event) {
    var message = event.data || {};
    if (message.type === "refdoc-state") {
      document.documentElement.setAttribute("data-refdoc-search", message.data);
    } else if (message.type === MESSAGE.ready) {
      ready = true;
      if (waiting !== null) {
        ask(waiting);
      }
    } else if (message.type === MESSAGE.result) {
      if (message.data.text === undefined || message.data.text === input.value.trim()) {
        show(message.data.items || []);
      }
    }
  }

  function ask(text) {
    if (!ready) {
      waiting = text;
      return;
    }
    waiting = null;
    worker.postMessage({ type: MESSAGE.query, data: text });
  }

  function counted(count) {
    var key = count === 0 ? "search.result.none" : count === 1 ? "search.result.one" : "search.result.other";
    var fallback = count === 0 ? "No matching documents" : count === 1 ? "1 matching document" : "# matching documents";
    return String(translations[key] || fallback).replace("#", String(count));
  }

  /* One link a result: the section it lands on (an anchor of its page), titled with the
     definition or heading, under the page's own title. The worker escapes the text. */
  function show(items) {
    list.textContent = "";
    selected = -1;
    if (!input.value.trim()) {
      output.hidden = true;
      return;
    }
    items.forEach(function (item) {
      var page = item[0];
      var section = item[item.length - 1];
      var link = document.createElement("a");
      link.href = new URL(section.location, base).href;
      link.className = "refdoc-zsearch__link";
      link.innerHTML =
        '<span class="refdoc-zsearch__page">' + page.title + "</span>" +
        '<span class="refdoc-zsearch__title">' + section.title + "</span>" +
        '<span class="refdoc-zsearch__text">' + section.text + "</span>";
      var entry = document.createElement("li");
      entry.appendChild(link);
      list.appendChild(entry);
    });
    meta.textContent = counted(items.length);
    output.hidden = false;
  }

  function links() {
    return Array.prototype.slice.call(list.querySelectorAll("a"));
  }

  function select(index) {
    var all = links();
    if (!all.length) {
      return;
    }
    selected = (index + all.length) % all.length;
    all.forEach(function (link, position) {
      link.setAttribute("aria-selected", String(position === selected));
    });
    all[selected].scrollIntoView({ block: "nearest" });
  }

  ["focusin", "pointerover", "touchstart"].forEach(function (name) {
    box.addEventListener(name, start, { passive: true });
  });
  input.addEventListener("input", function () {
    start();
    var text = input.value.trim();
    if (!text) {
      show([]);
      return;
    }
    ask(text);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      select(selected + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      var all = links();
      if (all.length) {
        event.preventDefault();
        location.href = all[Math.max(selected, 0)].href;
      }
    } else if (event.key === "Escape") {
      output.hidden = true;
      input.blur();
    }
  });
  input.addEventListener("focus", function () {
    if (list.children.length && input.value.trim()) {
      output.hidden = false;
    }
  });
  document.addEventListener("click", function (event) {
    if (!box.contains(event.target)) {
      output.hidden = true;
    }
  });
  // The header's search icon (for="__search") opens the box.
  var toggle = document.getElementById("__search");
  if (toggle) {
    toggle.addEventListener("change", function () {
      if (toggle.checked) {
        toggle.checked = false;
        input.focus();
      }
    });
  }
})();
