set -euo pipefail
# PAGES_REMOTE, when set, names another remote (refdoc-site's tests push to a local one).
remote="${PAGES_REMOTE:-https://x-access-token:${GH_TOKEN}@github.com/${REPOSITORY}.git}"
git init -q _pages
cd _pages
git remote add origin "$remote"
if git fetch -q --depth 1 origin gh-pages; then
  git checkout -q -b gh-pages FETCH_HEAD
else
  git checkout -q --orphan gh-pages
fi
