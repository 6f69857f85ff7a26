set -euo pipefail
marker='<!-- refdoc-site preview -->'
# Only a comment this workflow's own bot wrote is updated: anyone can start one with the marker.
existing=$(gh api --paginate "repos/${REPOSITORY}/issues/${PR_NUMBER}/comments" \
  --jq ".[] | select(.user.login == \"github-actions[bot]\" and .user.type == \"Bot\" and (.body | startswith(\"${marker}\"))) | .id" | head -n 1)
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/${REPOSITORY}/issues/comments/${existing}" -F body=@_publish/comment.md >/dev/null
else
  gh api --method POST "repos/${REPOSITORY}/issues/${PR_NUMBER}/comments" -F body=@_publish/comment.md >/dev/null
fi
