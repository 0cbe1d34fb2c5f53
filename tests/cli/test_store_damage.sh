#!/bin/sh
# A damaged store is refused before anything writes to it (issue 27, item
# 15): `lectern serve` on an empty lectern.db (on the main before this it
# was taken for a new store and written over) and on one whose pages were
# scribbled over exits 1 naming the file and what to do, and leaves the
# file as it was. A new store is made whole: no empty file, nothing left
# beside it.
. "$LEC_TESTS/cli/lib.sh"

db="$LECTERN_DATA/lectern.db"

# Made whole: the first command creates the store, which is never empty.
expect_status 0 "$LECTERN" reindex
[ -s "$db" ] && pass || fail "a new store is an empty file"
[ ! -e "$db.creating" ] && pass || fail "the store's making left $db.creating"

# An empty store file is damage.
rm -f "$db" "$db-wal" "$db-shm"
: > "$db"
expect_status 1 "$LECTERN" serve --listen 127.0.0.1:0 --workers 0
expect_match err "lectern.db: the store is an empty file"
expect_match err 'Restore it from a backup'
[ ! -s "$db" ] && [ ! -e "$db-wal" ] && pass || fail "the empty store was written to"

# Pages scribbled over past the schema: SQLite would only meet them on a
# read; the start's check finds them.
rm -f "$db"
expect_status 0 "$LECTERN" reindex
sqlite3 "$db" <<'SQL'
CREATE INDEX IF NOT EXISTS damage_probe ON projects (name);
INSERT INTO projects (name, slug, repo_url, created, modified)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
  SELECT 'Project number ' || i, 'p' || i, 'https://example.org/' || i, 0, 0 FROM n;
SQL
pages=$(sqlite3 "$db" 'PRAGMA page_count')
size=$(sqlite3 "$db" 'PRAGMA page_size')
# A page of the projects' rows or of the index, header and cell pointers
# overwritten (page 1, the schema, stays whole: the store still opens).
printf '\377%.0s' $(seq 64) | dd of="$db" bs=1 seek=$(( (pages / 2) * size )) conv=notrunc 2>/dev/null
before=$(sha256sum "$db")
expect_status 1 "$LECTERN" serve --listen 127.0.0.1:0 --workers 0
expect_match err 'lectern.db: the store is damaged'
expect_match err 'restore it from a backup'
[ "$(sha256sum "$db")" = "$before" ] && pass || fail "the damaged store was written to"

finish
