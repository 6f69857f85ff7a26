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
// - `data-report` (when the repository's URL is known): a "This is wrong" link on every
//   section of the page, opening the repository host's new-issue form prefilled with the
//   page, the section, the built commit, the section's claim and its evidence (no server:
//   it works on GitHub Pages); the Ask panel puts one under each answer (`refdocReport`);
// - `data-mermaid`: the site's own Mermaid, which the stand-in below loads on the first
//   diagram a page draws (Material and Zensical draw with the global `mermaid`, and fetch
//   it from a CDN when there is none);
// - code colours: a code block carries its tokens as runs (`data-refdoc-hl`, written by
//   rendering/page_weight.py instead of a span a token), drawn as Pygments' spans when the
//   block is first shown: at load, or when its `<details>` opens; and its line numbers as
//   its first line and count (`data-refdoc-lines`), built then into Pygments' table.
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

  // GitHub refuses a URL of more than 8 KB; the claim is cut first, then the evidence.
  var REPORT_MAX_URL = 7000;
  var CLAIM_MAX_CHARS = 600;
  var EVIDENCE_MAX = 6;

  /* The new-issue URL for a claim: `report` is { section, anchor, claim, evidence }. Every
     text goes through encodeURIComponent, and the URL is set as a property, never as markup. */
  function reportUrl(report) {
    var form = tag.getAttribute("data-report");
    var gitlab = tag.getAttribute("data-report-form") === "gitlab";
    var root = new URL("../../", here);
    var page = location.pathname.indexOf(root.pathname) === 0 ? location.pathname.slice(root.pathname.length) : location.pathname;
    var address = location.origin + location.pathname + (report.anchor ? "#" + report.anchor : "");
    var claim = String(report.claim || "").replace(/\s+/g, " ").trim();
    var evidence = (report.evidence || []).slice(0, EVIDENCE_MAX);
    function url() {
      var shown = claim.length > CLAIM_MAX_CHARS ? claim.slice(0, CLAIM_MAX_CHARS - 1) + "…" : claim;
      var body = [
        "**Page:** " + (page || "index") + " (" + address + ")",
        "**Section:** " + report.section + (report.anchor ? " (#" + report.anchor + ")" : ""),
        "**Commit:** " + (tag.getAttribute("data-report-commit") || "unknown"),
        "",
        "**Claim:**",
        "> " + shown,
        "",
        "**Evidence:**"
      ].concat(evidence.length ? evidence.map(function (item) { return "- " + item; }) : ["- (none cited)"]).concat(["", "**What is wrong:**", ""]).join("\n");
      var title = "Docs: \u201c" + report.section.slice(0, 120) + "\u201d on " + (page || "index") + " is wrong";
      var keys = gitlab ? ["issue[title]", "issue[description]"] : ["title", "body"];
      return form + "?" + encodeURIComponent(keys[0]) + "=" + encodeURIComponent(title) + "&" + encodeURIComponent(keys[1]) + "=" + encodeURIComponent(body);
    }
    var found = url();
    while (found.length > REPORT_MAX_URL && (claim.length > 40 || evidence.length)) {
      if (claim.length > 40) {
        claim = claim.slice(0, Math.floor(claim.length / 2));
      } else {
        evidence.pop();
      }
      found = url();
    }
    return found;
  }

  function reportLink(report, className) {
    var link = document.createElement("a");
    link.className = className;
    link.textContent = tag.getAttribute("data-report-label") || "This is wrong";
    link.href = reportUrl(report);
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    link.style.fontSize = ".55em";
    link.style.fontWeight = "normal";
    link.style.marginLeft = ".4em";
    return link;
  }

  /* A section is a heading and what follows it up to the next heading; its claim is that
     text, its evidence the links it makes to the repository's host (the source lines). */
  function addReportLinks() {
    var host = new URL(tag.getAttribute("data-report")).origin;
    // The page's own text: both themes' article (their header has .md-typeset spans too).
    var content = document.querySelector("article.md-content__inner") || document.querySelector(".md-content .md-typeset");
    if (!content) {
      return;
    }
    content.querySelectorAll("h1, h2, h3, h4").forEach(function (heading) {
      var claim = [];
      var evidence = [];
      for (var node = heading.nextElementSibling; node && !/^H[1-6]$/.test(node.tagName); node = node.nextElementSibling) {
        claim.push(node.textContent);
        node.querySelectorAll("a[href]").forEach(function (anchor) {
          if (anchor.origin === host && evidence.indexOf(anchor.href) < 0) {
            evidence.push(anchor.href);
          }
        });
      }
      var title = Array.prototype.filter.call(heading.childNodes, function (child) {
        return !(child.classList && child.classList.contains("headerlink"));
      }).map(function (child) { return child.textContent; }).join("").trim();
      var link = reportLink({ section: title, anchor: heading.id, claim: claim.join(" "), evidence: evidence }, "refdoc-wrong");
      heading.appendChild(document.createTextNode(" "));
      heading.appendChild(link);
    });
  }

  if (tag.hasAttribute("data-report")) {
    window.refdocReport = function (report) {
      return reportLink(report, "refdoc-wrong");
    };
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", addReportLinks);
    } else {
      addReportLinks();
    }
  }

  function paintRuns(code) {
    var runs = code.getAttribute("data-refdoc-hl");
    code.removeAttribute("data-refdoc-hl");
    var text = code.textContent;
    var painted = document.createDocumentFragment();
    var at = 0;
    // One run after another: a class (none for plain text) and a length after a dot,
    // `k.3.1nf.8` (page_weight.py's RUN).
    var run, runPattern = /([a-z][a-z0-9]*)?\.([0-9]+)/g;
    while ((run = runPattern.exec(runs)) !== null) {
      var length = Number(run[2]);
      var piece = document.createTextNode(text.substr(at, length));
      at += length;
      if (run[1]) {
        var span = document.createElement("span");
        span.className = run[1];
        span.appendChild(piece);
        piece = span;
      }
      painted.appendChild(piece);
    }
    painted.appendChild(document.createTextNode(text.slice(at)));
    code.textContent = "";
    code.appendChild(painted);
  }

  // The table Pygments writes around a numbered block, with the block's own <pre> moved
  // into its code cell (whatever the theme put in it stays).
  function numberLines(code) {
    var lines = code.getAttribute("data-refdoc-lines").split(" ").map(Number);
    code.removeAttribute("data-refdoc-lines");
    var pre = code.parentElement;
    var last = lines[0] + lines[1] - 1;
    var numbers = [];
    for (var number = lines[0]; number <= last; number++) {
      numbers.push(String(number).padStart(String(last).length, " "));
    }
    var table = document.createElement("table");
    table.className = "highlighttable";
    table.innerHTML = '<tr><td class="linenos"><div class="linenodiv"><pre></pre></div></td><td class="code"><div></div></td></tr>';
    table.querySelector(".linenodiv pre").textContent = numbers.join("\n");
    pre.parentElement.replaceChild(table, pre);
    table.querySelector("td.code div").appendChild(pre);
  }

  var DRAWN_LATER = "code[data-refdoc-hl], code[data-refdoc-lines]";

  function drawCode(code) {
    if (code.hasAttribute("data-refdoc-hl")) {
      paintRuns(code);
    }
    if (code.hasAttribute("data-refdoc-lines")) {
      numberLines(code);
    }
  }

  function paintCode() {
    document.addEventListener("DOMContentLoaded", function () {
      document.querySelectorAll(DRAWN_LATER).forEach(function (code) {
        if (!code.closest("details:not([open])")) {
          drawCode(code);
        }
      });
    });
    // `toggle` does not bubble: it is caught on its way down.
    document.addEventListener("toggle", function (event) {
      var details = event.target;
      if (details instanceof HTMLDetailsElement && details.open) {
        details.querySelectorAll(DRAWN_LATER).forEach(function (code) {
          if (!code.parentElement.closest("details:not([open])")) {
            drawCode(code);
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
