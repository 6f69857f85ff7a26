"""Search, in the CLI and in the site: the hybrid ranking (Lunr fields + the static
embedder's vectors), the site's search data, the evaluation on labelled queries, and the
browser files (`browser/`) that rank the same way in JavaScript."""
