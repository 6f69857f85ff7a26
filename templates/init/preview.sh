[% include "init/pages_begin.sh" %]
rm -rf "pr-${PR_NUMBER}"
cp -a ../_publish/site "pr-${PR_NUMBER}"
[% with message = "Preview pull request ${PR_NUMBER}" %][% include "init/pages_end.sh" %][% endwith %]
