set -euo pipefail
if [ "$EVENT" = pull_request ]; then
  preview_url="${PAGES_URL}pr-${PR_NUMBER}/"
  refdoc-site build . --out _publish/site --site-url "$preview_url" --base "$BASE_SHA"
  refdoc-site diff . --base "$BASE_SHA" --markdown _change-map.md
  {
    echo '<!-- refdoc-site preview -->'
    echo "Documentation preview: $preview_url"
    echo
    if [ -f _change-map.md ]; then cat _change-map.md; fi
  } > _publish/comment.md
else
  refdoc-site build . --out _publish/site --site-url "$PAGES_URL"
fi
