#!/bin/sh
# The sandboxed side of helper_credentials_test's push: clone, commit and push over HTTPS through
# the credential endpoint (git's environment config points github-like URLs at it); then how many
# variables hold the token (none).
set -e
cd "$HOME/proj"
git clone -q https://git.example.test/repo.git work
cd work
echo "from the sandbox" > README
git add README
git -c user.name=Agent -c user.email=agent@example.test commit -q -m "pushed through the broker"
git push -q origin HEAD:main
echo pushed
env | grep -c "ghp_test" || true
