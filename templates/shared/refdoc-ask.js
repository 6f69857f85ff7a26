/* refdoc-site's Ask panel, on MkDocs and Zensical sites alike: loaded only on a page
 * `refdoc-site serve` sent (refdoc-ask.html, which both themes include, reads its
 * Server-Timing mark, so a statically hosted site never loads this file nor asks
 * anything). It probes `ask/health` at the site's root and, when that answers, draws a
 * button beside the header's search box (Material's, or refdoc-site's own on a Zensical
 * site) that opens the panel: the conversation so far (kept for the
 * tab in sessionStorage, so it survives following a citation), a question field, and the
 * answer as `POST ask` streams it (newline-delimited JSON events). The answer's Markdown is
 * turned into elements, never into HTML: links go only to pages of this site.
 * The page waits on `ask/changes` and reloads after a rebuild (or, while a question is
 * typed or an answer streams, offers to).
 */
(function () {
  "use strict";

  var STORE_KEY = "refdoc-ask";
  var MAX_TURNS = 20;
  var COVERING_SHARE = 0.8; /* a panel wider than this share of the window hides the page */
  var config = JSON.parse(document.getElementById("__config").textContent);
  var root = new URL(String(config.base || ".").replace(/\/?$/, "/"), location.href);
  var served = window.refdocServed || {};

  function endpoint(path) {
    return new URL(path, root).href;
  }

  function load() {
    try {
      var saved = JSON.parse(sessionStorage.getItem(STORE_KEY) || "{}");
      return { open: !!saved.open, turns: Array.isArray(saved.turns) ? saved.turns : [] };
    } catch (error) {
      return { open: false, turns: [] };
    }
  }

  var state = load();

  function save() {
    try {
      sessionStorage.setItem(STORE_KEY, JSON.stringify({ open: state.open, turns: state.turns.slice(-MAX_TURNS) }));
    } catch (error) {
      /* storage full or refused: the conversation lasts for this page only */
    }
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  /* A link of the answer: only a relative address, resolved against the site's root; any
     other (a scheme, another host) stays text. */
  function siteLink(url) {
    if (!url || /^[a-z][a-z0-9+.-]*:/i.test(url) || url.indexOf("//") === 0) {
      return null;
    }
    var resolved = new URL(url, root);
    return resolved.origin === location.origin ? resolved.href : null;
  }

  /* A link, a code span, bold, or a character the answer escaped (core/text.markdown_line
     writes a repository's `[`, `]`, backticks and backslashes escaped and a tag's `<` as
     `&lt;`): shown as the character itself, as text. */
  var INLINE = /\[((?:\\.|[^\]\\\n])+)\]\(([^)\s]+)\)|`([^`\n]+)`|\*\*([^*\n]+)\*\*|\\([\\`*_\[\]<>])|&lt;/g;

  function plain(text) {
    return text.replace(/\\([\\`*_\[\]<>])/g, "$1").replace(/&lt;/g, "<");
  }

  function inline(parent, text) {
    var last = 0;
    var match;
    INLINE.lastIndex = 0;
    while ((match = INLINE.exec(text)) !== null) {
      parent.appendChild(document.createTextNode(text.slice(last, match.index)));
      if (match[1] !== undefined) {
        var href = siteLink(match[2]);
        if (href) {
          var link = element("a", "refdoc-ask__cite", plain(match[1]));
          link.href = href;
          parent.appendChild(link);
        } else {
          parent.appendChild(document.createTextNode(match[0]));
        }
      } else if (match[3] !== undefined) {
        parent.appendChild(element("code", "", match[3]));
      } else if (match[4] !== undefined) {
        parent.appendChild(element("strong", "", plain(match[4])));
      } else {
        parent.appendChild(document.createTextNode(match[5] !== undefined ? match[5] : "<"));
      }
      last = match.index + match[0].length;
    }
    parent.appendChild(document.createTextNode(text.slice(last)));
  }

  /* Paragraphs, list items (`-`, `*`; `1.` numbered, as a search result's rank) and
     headings (as bold lines) of the answer. */
  function markdown(text) {
    var box = element("div", "refdoc-ask__text");
    var list = null;
    String(text).split("\n").forEach(function (line) {
      var item = /^\s*(?:([-*])|(\d+)\.)\s+(.*)$/.exec(line);
      if (item) {
        var tag = item[1] ? "UL" : "OL";
        if (!list || list.tagName !== tag) {
          list = box.appendChild(element(tag.toLowerCase()));
          if (item[2] && item[2] !== "1") {
            list.start = Number(item[2]);
          }
        }
        inline(list.appendChild(element("li")), item[3]);
        return;
      }
      list = null;
      if (!line.trim()) {
        return;
      }
      var heading = /^#+\s+(.*)$/.exec(line);
      var paragraph = box.appendChild(element("p"));
      if (heading) {
        paragraph.appendChild(element("strong", "", heading[1]));
      } else {
        inline(paragraph, line);
      }
    });
    return box;
  }

  function sourcesList(sources) {
    var list = element("ul", "refdoc-ask__sources");
    (sources || []).forEach(function (source) {
      var item = list.appendChild(element("li"));
      var label = source.path + ":" + source.start_line + "-" + source.end_line;
      var href = siteLink(source.url);
      if (href) {
        var link = item.appendChild(element("a", "", label));
        link.href = href;
      } else {
        item.appendChild(element("span", "", label));
      }
      if (source.symbol) {
        item.appendChild(document.createTextNode(" " + source.symbol));
      }
      if (source.reason) {
        item.appendChild(element("span", "refdoc-ask__reason", " (" + source.reason + ")"));
      }
    });
    return list;
  }

  function turnView(turn) {
    var view = element("div", "refdoc-ask__turn");
    view.appendChild(element("p", "refdoc-ask__question", turn.question));
    var answer = view.appendChild(element("div", "refdoc-ask__answer"));
    answer.appendChild(markdown(turn.answer));
    // An extractive answer is its list of sources already; a model's lists what it was shown.
    if (turn.mode === "llm" && turn.sources && turn.sources.length) {
      answer.appendChild(element("p", "refdoc-ask__label", "Sources the model was shown"));
      answer.appendChild(sourcesList(turn.sources));
    }
    if (turn.flagged && turn.flagged.length) {
      answer.appendChild(element("p", "refdoc-ask__label", "Cited but not in what the model was shown (marked above): " + turn.flagged.join(", ")));
    }
    // The page's script offers it when the repository's URL is known (refdoc-page.js).
    if (window.refdocReport) {
      answer.appendChild(element("p", "refdoc-ask__report")).appendChild(window.refdocReport({
        section: "Ask: " + turn.question,
        anchor: "",
        claim: turn.answer,
        evidence: (turn.sources || []).map(function (source) {
          return source.path + ":" + source.start_line + "-" + source.end_line + (source.symbol ? " " + source.symbol : "");
        })
      }));
    }
    return view;
  }

  /* The header's search box the Ask button follows: Material's, or on a Zensical site
     refdoc-site's own (templates/zensical/partials/search.html). */
  var SEARCH_BOX = ".md-search, .refdoc-zsearch";

  /* The panel sits under the header (z-index 4 in both themes), whose search results and
     mobile drawer must cover it, and above the page and its sidebars. Its width is a share
     of the viewport without its scroll bar (100%, not 100vw): Zensical keeps a gutter for
     the bar (scrollbar-gutter: stable), and 100vw put the panel's left edge off screen. */
  var STYLE =
    ".refdoc-ask-toggle{margin:0 .4rem;padding:.2rem .6rem;border:1px solid currentColor;border-radius:.2rem;background:none;color:inherit;font:inherit;font-size:.8rem;cursor:pointer}" +
    "#refdoc-ask{position:fixed;top:3rem;right:.6rem;z-index:3;width:min(34rem,calc(100% - 1.2rem));max-height:calc(100vh - 4rem);display:flex;flex-direction:column;background:var(--md-default-bg-color);color:var(--md-default-fg-color);border:1px solid var(--md-default-fg-color--lightest);border-radius:.2rem;box-shadow:0 .2rem .6rem rgba(0,0,0,.2);font-size:.7rem}" +
    "#refdoc-ask[hidden]{display:none}" +
    ".refdoc-ask__log{overflow-y:auto;padding:.6rem;flex:1}" +
    ".refdoc-ask__question{font-weight:700;margin:.6rem 0 .2rem}" +
    ".refdoc-ask__label,.refdoc-ask__reason,.refdoc-ask__note{color:var(--md-default-fg-color--light)}" +
    ".refdoc-ask__form{display:flex;gap:.4rem;padding:.6rem;border-top:1px solid var(--md-default-fg-color--lightest)}" +
    ".refdoc-ask__input{flex:1;font:inherit;padding:.3rem;color:inherit;background:none;border:1px solid var(--md-default-fg-color--lighter)}" +
    ".refdoc-ask__form button{font:inherit;cursor:pointer}" +
    "#refdoc-ask a{color:var(--md-typeset-a-color);text-decoration:underline}" +
    ".refdoc-ask__text p{margin:.3rem 0}";

  function draw(health) {
    var header = document.querySelector(".md-header__inner");
    if (!header || document.getElementById("refdoc-ask")) {
      return;
    }
    document.head.appendChild(element("style", "", STYLE));
    var toggle = element("button", "refdoc-ask-toggle", "Ask");
    toggle.type = "button";
    toggle.title = "Ask a question about this repository";
    var search = header.querySelector(SEARCH_BOX);
    header.insertBefore(toggle, search ? search.nextSibling : null);

    var panel = element("section");
    panel.id = "refdoc-ask";
    panel.setAttribute("aria-label", "Ask");
    var log = panel.appendChild(element("div", "refdoc-ask__log"));
    var note = health.mode === "llm" ? "Answers by the configured model, citing the code." : "No LLM is configured: answers are put together from the best search results, each cited.";
    log.appendChild(element("p", "refdoc-ask__note", note));
    var turns = log.appendChild(element("div", "refdoc-ask__turns"));
    var form = panel.appendChild(element("form", "refdoc-ask__form"));
    var input = form.appendChild(element("textarea", "refdoc-ask__input"));
    input.rows = 2;
    input.maxLength = health.maxQuestionChars || 2000;
    input.placeholder = "Ask about this repository";
    var send = form.appendChild(element("button", "", "Ask"));
    send.type = "submit";
    var clear = form.appendChild(element("button", "", "Clear"));
    clear.type = "button";
    document.body.appendChild(panel);

    function show() {
      turns.textContent = "";
      state.turns.forEach(function (turn) {
        turns.appendChild(turnView(turn));
      });
    }

    function setOpen(open) {
      state.open = open;
      panel.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      save();
      if (open) {
        log.scrollTop = log.scrollHeight;
      }
    }

    toggle.addEventListener("click", function () {
      setOpen(!state.open);
      if (state.open) {
        input.focus();
      }
    });
    clear.addEventListener("click", function () {
      state.turns = [];
      save();
      show();
    });
    // Following a link of the panel on a screen it covers (a phone's) closes it, so the
    // page it leads to can be read; the conversation stays, and Ask reopens it. On a wide
    // screen it stays open beside the page. A link opened in a new tab changes nothing.
    panel.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[href]") : null;
      if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
        return;
      }
      if (panel.offsetWidth > COVERING_SHARE * window.innerWidth) {
        setOpen(false);
      }
    });
    panel.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        setOpen(false);
        toggle.focus();
      }
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var question = input.value.trim();
      if (!question || send.disabled) {
        return;
      }
      input.value = "";
      ask(question);
    });

    function ask(question) {
      send.disabled = true;
      var view = turns.appendChild(element("div", "refdoc-ask__turn"));
      view.appendChild(element("p", "refdoc-ask__question", question));
      var answer = view.appendChild(element("div", "refdoc-ask__answer"));
      answer.setAttribute("data-state", "streaming");
      var pieces = 0;
      var text = "";
      function render(body) {
        answer.textContent = "";
        answer.appendChild(body);
        log.scrollTop = log.scrollHeight;
      }
      function fail(message) {
        answer.setAttribute("data-state", "failed");
        render(element("p", "refdoc-ask__note", message));
      }
      var history = state.turns.map(function (turn) {
        return { question: turn.question, answer: turn.answer };
      });
      fetch(endpoint("ask"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ question: question, history: history })
      }).then(function (response) {
        if (!response.ok) {
          return response.json().then(function (data) {
            fail(data.error || "the server refused the question (" + response.status + ")");
          }, function () {
            fail("the server refused the question (" + response.status + ")");
          });
        }
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffered = "";
        function handle(line) {
          if (!line.trim()) {
            return;
          }
          var event = JSON.parse(line);
          if (event.type === "text") {
            pieces += 1;
            text += event.text;
            answer.setAttribute("data-pieces", String(pieces));
            render(markdown(text));
          } else if (event.type === "answer") {
            var result = event.answer;
            var turn = { question: question, answer: result.text, mode: result.mode, flagged: result.flagged || [], sources: (result.sources || []).map(function (source) {
              return { path: source.path, start_line: source.start_line, end_line: source.end_line, symbol: source.symbol, reason: source.reason, url: source.url };
            }) };
            state.turns.push(turn);
            state.turns = state.turns.slice(-MAX_TURNS);
            save();
            view.replaceWith(turnView(turn));
            answer = turns.lastChild.querySelector(".refdoc-ask__answer");
            answer.setAttribute("data-state", "done");
            answer.setAttribute("data-pieces", String(pieces));
          } else if (event.type === "error") {
            fail(event.message);
          }
        }
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) {
              handle(buffered);
              return;
            }
            buffered += decoder.decode(chunk.value, { stream: true });
            var lines = buffered.split("\n");
            buffered = lines.pop();
            lines.forEach(handle);
            return pump();
          });
        }
        return pump();
      }).catch(function () {
        fail("the server did not answer; is refdoc-site serve still running?");
      }).then(function () {
        send.disabled = false;
        if (answer.getAttribute("data-state") === "streaming") {
          fail("the answer ended early");
        }
      });
    }

    show();
    setOpen(state.open);

    // A rebuild reloads the page, unless that would lose a question being typed or an
    // answer still streaming: then the panel says so and offers the reload.
    panelBusy = function () {
      return send.disabled || input.value.trim() !== "";
    };
    tellRebuilt = function () {
      if (panel.querySelector(".refdoc-ask__rebuilt")) {
        return;
      }
      var note = element("p", "refdoc-ask__note refdoc-ask__rebuilt", "The site was rebuilt. ");
      var reload = note.appendChild(element("button", "", "Reload"));
      reload.type = "button";
      reload.addEventListener("click", function () {
        location.reload();
      });
      log.insertBefore(note, log.firstChild);
    };
  }

  var panelBusy = function () {
    return false;
  };
  var tellRebuilt = function () {};

  /* Reload once a rebuild changed the site (ask/changes answers with the new epoch). */
  function watchChanges(epoch) {
    fetch(endpoint("ask/changes?since=" + encodeURIComponent(epoch)), { cache: "no-store" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (data) {
      if (data && String(data.epoch) !== String(epoch)) {
        if (panelBusy()) {
          tellRebuilt();
        } else {
          location.reload();
        }
      } else {
        setTimeout(function () {
          watchChanges(epoch);
        }, data ? 0 : 5000);
      }
    }, function () {
      /* the server stopped: nothing to wait for */
    });
  }

  fetch(endpoint("ask/health"), { cache: "no-store" }).then(function (response) {
    return response.ok ? response.json() : null;
  }).then(function (health) {
    if (!health) {
      return;
    }
    document.documentElement.setAttribute("data-refdoc-ask", health.mode);
    draw(health);
    watchChanges(served.epoch || health.epoch);
  }, function () {
    /* no endpoint: no panel */
  });
})();
