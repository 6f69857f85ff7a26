// The scripts every page of the site runs, in one file the browser fetches once: inline,
// their 4 KB were on each of a site's pages (13,000 on homeassistant's). Both themes'
// main.html load it, synchronously, after the page's `__config` and before the theme's
// bundle; its tag says what the page needs:
// - `data-search` (Material): Material's search box talks to refdoc-site's search worker,
//   which loads its data only once the box is about to be used;
// - the Ask panel's loader: `refdoc-site serve` marks the pages it sends with a
//   Server-Timing entry, read here without a request; a site on a static host has none,
//   so it loads and asks nothing more. Served, the panel's script (refdoc-ask.js, beside
//   this one) probes the endpoint and draws the panel beside the header's search box;
// - `data-mermaid`: the site's own Mermaid, which the stand-in below loads on the first
//   diagram a page draws (Material and Zensical draw with the global `mermaid`, and fetch
//   it from a CDN when there is none);
// - code colours: a code block carries its tokens as runs (`data-refdoc-hl`, written by
//   rendering/page_weight.py instead of a span a token), drawn as Pygments' spans when the
//   block is first shown: at load, or when its `<details>` opens.
(function () {
  var tag = document.currentScript;
  var here = tag.src;

  function pointSearchAtOurWorker() {
    var element = document.getElementById("__config");
    var config = JSON.parse(element.textContent);
    var material = new URL(config.search, location.href).href;
    var worker = new URL("search-worker.js", here);
    worker.searchParams.set("material", material);
    config.search = worker.href;
    element.textContent = JSON.stringify(config);

    // Material creates the worker at load; it fetches nothing until told the box is
    // about to be used: focus, a pointer over the box or its icon, or a query typed.
    // Its progress ("keyword", then "settled") is shown on <html data-refdoc-search>.
    var NativeWorker = window.Worker;
    var searchWorker = null;
    var wanted = false;
    function warm() {
      wanted = true;
      if (searchWorker) {
        searchWorker.postMessage({ type: "refdoc-warm" });
      }
    }
    window.Worker = function (url, options) {
      var created = new NativeWorker(url, options);
      if (!searchWorker && String(url) === worker.href) {
        searchWorker = created;
        created.addEventListener("message", function (event) {
          if (event.data && event.data.type === "refdoc-state") {
            document.documentElement.setAttribute("data-refdoc-search", event.data.data);
          }
        });
        if (wanted) {
          warm();
        }
      }
      return created;
    };
    window.Worker.prototype = NativeWorker.prototype;
    function intent(event) {
      var target = event.target;
      if (!wanted && target instanceof Element && target.closest(".md-search, label[for='__search']")) {
        warm();
      }
    }
    document.addEventListener("focusin", intent, true);
    document.addEventListener("pointerover", intent, true);
    document.addEventListener("touchstart", intent, { capture: true, passive: true });
  }

  function loadAskWhenServed() {
    var navigation = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    var marks = (navigation && navigation.serverTiming) || [];
    for (var i = 0; i < marks.length; i++) {
      if (marks[i].name === "refdoc-serve") {
        window.refdocServed = { epoch: marks[i].description };
        var script = document.createElement("script");
        script.src = new URL("refdoc-ask.js", here).href;
        script.defer = true;
        document.addEventListener("DOMContentLoaded", function () {
          document.body.appendChild(script);
        });
        return;
      }
    }
  }

  function standInForMermaid() {
    // Material draws a diagram with the global `mermaid` (and fetches it from a CDN when
    // there is none). This stand-in loads the site's own copy on the first diagram a page
    // draws, so a page without one never downloads it.
    var script = new URL(tag.getAttribute("data-mermaid"), location.href).href;
    var settings = null;
    var loading = null;
    // Mermaid's module build imports only what a diagram needs; its classic script is
    // one file with every diagram type and sets the global itself.
    function load() {
      loading = loading || (/\.mjs$/.test(script) ? import(script).then(function (module) {
        return module.default;
      }) : new Promise(function (resolve, reject) {
        var element = document.createElement("script");
        element.src = script;
        element.onload = function () {
          resolve(window.mermaid);
        };
        element.onerror = function () {
          reject(new Error(script + " did not load"));
        };
        document.head.appendChild(element);
      })).then(function (mermaid) {
        mermaid.initialize(settings || {});
        return mermaid;
      });
      return loading;
    }
    window.mermaid = {
      initialize: function (options) {
        settings = options;
      },
      render: function (id, text) {
        return load().then(function (mermaid) {
          return mermaid.render(id, text);
        });
      }
    };
  }

  function paintRuns(code) {
    var runs = code.getAttribute("data-refdoc-hl");
    code.removeAttribute("data-refdoc-hl");
    var text = code.textContent;
    var painted = document.createDocumentFragment();
    var at = 0;
    runs.split(" ").forEach(function (run) {
      var dot = run.lastIndexOf(".");
      var length = Number(run.slice(dot + 1));
      var piece = document.createTextNode(text.substr(at, length));
      at += length;
      if (dot > 0) {
        var span = document.createElement("span");
        span.className = run.slice(0, dot);
        span.appendChild(piece);
        piece = span;
      }
      painted.appendChild(piece);
    });
    painted.appendChild(document.createTextNode(text.slice(at)));
    code.textContent = "";
    code.appendChild(painted);
  }

  function paintCode() {
    document.addEventListener("DOMContentLoaded", function () {
      document.querySelectorAll("code[data-refdoc-hl]").forEach(function (code) {
        if (!code.closest("details:not([open])")) {
          paintRuns(code);
        }
      });
    });
    // `toggle` does not bubble: it is caught on its way down.
    document.addEventListener("toggle", function (event) {
      var details = event.target;
      if (details instanceof HTMLDetailsElement && details.open) {
        details.querySelectorAll("code[data-refdoc-hl]").forEach(function (code) {
          if (!code.parentElement.closest("details:not([open])")) {
            paintRuns(code);
          }
        });
      }
    }, true);
  }

  if (tag.hasAttribute("data-search")) {
    pointSearchAtOurWorker();
  }
  paintCode();
  loadAskWhenServed();
  if (tag.hasAttribute("data-mermaid")) {
    standInForMermaid();
  }
})();
