set -euo pipefail
[% if shards > 1 %]
# Documents dated by the commit, as in the index jobs: the store one job would build.
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
export SOURCE_DATE_EPOCH
shards=(--from-shards "$SHARDS_DIR"/refdoc-shard-*/)
[% endif %]
if [ "$EVENT" = pull_request ]; then
  preview_url="${PAGES_URL}pr-${PR_NUMBER}/"
  refdoc-site build . --out _publish/site --site-url "$preview_url" --base "$BASE_SHA"[% if shards > 1 %] "${shards[@]}"[% endif %]

  refdoc-site diff . --base "$BASE_SHA" --markdown _change-map.md
  {
    echo '<!-- refdoc-site preview -->'
    echo "Documentation preview: $preview_url"
    echo
    if [ -f _change-map.md ]; then cat _change-map.md; fi
  } > _publish/comment.md
else
  refdoc-site build . --out _publish/site --site-url "$PAGES_URL"[% if shards > 1 %] "${shards[@]}"[% endif %]

fi
