[% include "init/pages_begin.sh" %]
# Everything but the previews makes way for the new site.
find . -mindepth 1 -maxdepth 1 ! -name .git ! -name 'pr-*' -exec rm -rf {} +
cp -a ../_publish/site/. .
[% with message = "Publish the documentation" %][% include "init/pages_end.sh" %][% endwith %]
