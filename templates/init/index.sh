set -euo pipefail
# Documents dated by the commit, not the clock: every shard and the merge date them alike.
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
export SOURCE_DATE_EPOCH
refdoc-site index . --store "$SHARD_STORE" --shard "$SHARD/$SHARDS"
