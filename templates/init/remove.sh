[% include "init/pages_begin.sh" %]
rm -rf "pr-${PR_NUMBER}"
[% with message = "Remove the preview of pull request ${PR_NUMBER}" %][% include "init/pages_end.sh" %][% endwith %]
