touch .nojekyll
git add -A
if git diff --cached --quiet; then
  echo "gh-pages: nothing changed"
  exit 0
fi
git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
  commit -q -m "[[ message ]]"
git push -q origin gh-pages
