#!/bin/sh
# Makes the TUI demo's repository for the package: OUT, a bare git repository
# whose branch main has one commit of SRC's README.md and docs/*.md, dated
# DATE (the source commit's date, so the same source gives the same bytes).
# An installed lectern has no checkout of itself; its demo imports this
# through the engine's ordinary git import. Run by cmake/Package.cmake.
#
# usage: demo-repo.sh SRC OUT DATE
set -eu
src=$1 out=$2 date=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/docs"
cp "$src/README.md" "$work/"
cp "$src"/docs/*.md "$work/docs/"

# No user or system git config may change the result.
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Lectern GIT_AUTHOR_EMAIL=lectern@localhost
export GIT_COMMITTER_NAME=Lectern GIT_COMMITTER_EMAIL=lectern@localhost
export GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date"

rm -rf "$out"
# --template= leaves out the sample hooks and the description file.
git init -q --bare --template= -b main "$out"
git --git-dir="$out" --work-tree="$work" add README.md docs
git --git-dir="$out" --work-tree="$work" commit -q -m "Lectern's documentation"
git --git-dir="$out" repack -a -d -q
git --git-dir="$out" prune-packed
# What only a working repository needs: its index, reflogs, last message.
rm -rf "$out/index" "$out/logs" "$out/COMMIT_EDITMSG"
# Debian frowns on empty directories; git needs none of these.
find "$out" -type d -empty -delete
