[% include "init/pages_begin.sh" %]
# The files that differ from the site at the root (its refdoc-pages.json); links and search
# results reach the rest there. A branch without that site gets the whole preview.
refdoc-site preview ../_publish/site --main . --out "pr-${PR_NUMBER}"
[% with message = "Preview pull request ${PR_NUMBER}" %][% include "init/pages_end.sh" %][% endwith %]
