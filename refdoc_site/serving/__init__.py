"""`refdoc-site serve`: the built site on a local HTTP server, rebuilt when the repository
changes, with an `/ask` endpoint that streams cited answers from the store.

- `limits.py`: what a request may be: body size, question length, history, rate per client;
- `static.py`: which file of the site a URL names (nothing outside the site, no dotfile);
- `server.py`: the HTTP server: the site's files, `ask/health`, `POST ask`, `ask/changes`;
- `watch.py`: the repository watched, the incremental build rerun after a change.
"""
