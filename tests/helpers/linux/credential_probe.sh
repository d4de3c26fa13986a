#!/bin/sh
# The sandboxed side of helper_credentials_test: brokered requests (with and without the
# placeholder, for another host, past the budget), then a search of every byte the sandbox can
# read for the key, which arrives on standard input and is never exported, written or an argument.
# The sandbox cannot list / itself: the arguments name the view's roots (its read and write
# grants), and /tmp, /dev/shm and /run are searched besides.
read -r K
echo "placeholder=$TEST_API_KEY base=$TEST_BASE_URL"
curl -sS --max-time 20 -H "x-api-key: $TEST_API_KEY" "$TEST_BASE_URL/echo" > "$HOME/proj/echo.json"; echo "with_rc=$?"
curl -sS --max-time 20 -o /dev/null -w 'without=%{http_code}\n' "$TEST_BASE_URL/echo"
curl -sS --max-time 20 -o /dev/null -w 'other_host=%{http_code}\n' -H "Host: evil.example.com" -H "x-api-key: $TEST_API_KEY" "$TEST_BASE_URL/echo"
curl -sS --max-time 20 -o /dev/null -w 'budget=%{http_code}\n' -H "x-api-key: $TEST_API_KEY" "$TEST_BASE_URL/echo"
curl -sS --max-time 20 -o /dev/null -w 'over_budget=%{http_code}\n' -H "x-api-key: $TEST_API_KEY" "$TEST_BASE_URL/echo"
printf '%s\n' "$K" | grep -rlaF -D skip -s -f - "$@" /tmp /dev/shm /run | sed 's/^/FOUND-IN-FILE /'
echo "readable_files=$(find "$@" /tmp /dev/shm /run -type f -readable 2>/dev/null | wc -l)"
printf '%s\n' "$K" | grep -laF -s -f - /proc/[0-9]*/environ /proc/[0-9]*/cmdline | sed 's/^/FOUND-IN-PROC /'
echo searched
