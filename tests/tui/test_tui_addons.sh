#!/bin/sh
# The reader and the docs' addons (issue 39): a page of latest shows the
# notice its browser readers get ("latest: development version — s for
# stable") under its header; `s` reads the same page in stable, which has
# no notice; `v` lists the page's versions and choosing v1.0 opens the
# same page there, with its own notice. The other versions serve copies of
# latest's build (building each would take minutes).
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
/usr/bin/python3 - "$TMP/data" "$slug" <<'PY'
import os, shutil, sqlite3, sys
data, slug = sys.argv[1:3]
latest = os.path.realpath(os.path.join(data, "published", slug, "latest", "html"))
c = sqlite3.connect(os.path.join(data, "lectern.db"), timeout=30)
with c:
    for v in ("stable", "v1.0"):
        c.execute("INSERT INTO versions (project_id, slug, verbose_name, identifier, type, active,"
                  " hidden, built, uploaded, privacy_level, machine, has_pdf, has_epub,"
                  " has_htmlzip, created, modified) SELECT id, ?, ?, ?, 'tag', 1, 0, 1, 0,"
                  " 'public', 0, 0, 0, 0, 1, 1 FROM projects WHERE slug = ?"
                  " ON CONFLICT (project_id, slug) DO UPDATE SET active = 1, built = 1",
                  (v, v, v, slug))
        shutil.copytree(latest, os.path.join(data, "published", slug, v, "html"))
PY

tui
wait_for '^guide +Guide +latest +finished' "projects"
keys : s e a r c h ' ' s e t u p Enter
wait_for '^  Setup *$' "the section found"
keys j Enter
wait_for '^Install  http://guide\.localhost:[0-9]+/en/latest/pages/install\.html *$' "the page"
wait_for '^latest: development version — s for stable *$' "the latest notice"
keys s
wait_for '^Install  http://guide\.localhost:[0-9]+/en/stable/pages/install\.html *$' "the page in stable"
sleep 0.3
screen | grep -q 'development version' && fail "stable shows a notice: $(screen)" || pass
keys v
wait_for 'v1\.0' "the versions listed"
keys G Enter
wait_for '^Install  http://guide\.localhost:[0-9]+/en/v1\.0/pages/install\.html *$' "the page in v1.0"
wait_for '^v1\.0: not the stable version — s for stable *$' "v1.0's notice"
quit_tui
finish
