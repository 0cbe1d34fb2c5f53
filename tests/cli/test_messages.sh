#!/bin/sh
# Messages that must not mislead (issue 31, item 8): `serve --data DIR`
# names its data directory in the token hint (a bare `token create` would
# make the user in the default store).
. "$LEC_TESTS/cli/lib.sh"

"$LECTERN" --data "$DATA/other" serve --listen 127.0.0.1:0 --workers 0 \
	>"$DATA/serve.out" 2>"$DATA/serve.err" &
pid=$!
i=0
while ! grep -q 'Ctrl-C' "$DATA/serve.err" 2>/dev/null && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
expect_match serve.err "create a token with 'lectern --data '$DATA/other' token create USER'"
# The hint works as printed: the token is made in that data directory.
expect_status 0 "$LECTERN" --data "$DATA/other" token create alice
expect_status 0 "$LECTERN" --data "$DATA/other" user list
expect_match out 'alice'

finish
