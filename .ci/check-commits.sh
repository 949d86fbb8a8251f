#!/usr/bin/env bash
# Checks the commit messages from the commit that added this script to HEAD (or of the
# commits given, as `git rev-list` arguments): a subject `area: imperative summary` of at
# most 72 characters, without a final period, a blank line, then a body that says why
# (and, for a change that costs or saves something, the figures).
#
#   .ci/check-commits.sh              every commit since this check landed
#   .ci/check-commits.sh A..B         those commits
#   .ci/check-commits.sh --message F  one message in a file (a commit-msg hook:
#                                     ln -s ../../.ci/check-commits.sh .git/hooks/commit-msg
#                                     calls it with the file as its only argument)
#
# Prints one line per problem and exits 1 when there is any, 0 otherwise.
set -euo pipefail

problems=0
complain() { echo "check-commits: $1: $2"; problems=$((problems + 1)); }

# An area is a path or a component (bpf, cli, docs/kernels.md, README, test/docs),
# several joined by ", " or "+"; the summary starts with a word in lower case or a name
# in code (`-e`, --trace, io_uring_enter()).
subject_re='^[A-Za-z0-9._/-]+([,+] ?[A-Za-z0-9._/-]+)*: [^ A-Z]'

check_message() {  # name, message text
  local name=$1 text=$2 subject second body
  subject=$(sed -n 1p <<<"$text")
  second=$(sed -n 2p <<<"$text")
  body=$(sed -n '3,$p' <<<"$text" | grep -v '^#' | grep -c '[^[:space:]]' || true)
  ((${#subject} <= 72)) || complain "$name" "subject is ${#subject} characters, 72 at most: $subject"
  [[ $subject =~ $subject_re ]] || complain "$name" "subject is not 'area: imperative summary' (lower case after the colon): $subject"
  [[ $subject != *. ]] || complain "$name" "subject ends with a period: $subject"
  [[ -z $second ]] || complain "$name" "no blank line after the subject"
  ((body > 0)) || complain "$name" "no body: say why, and give the figures when something got faster or slower"
}

if [[ ${1:-} == --message || ($# == 1 && -f ${1:-}) ]]; then
  file=${2:-$1}
  check_message "${file##*/}" "$(grep -v '^#' "$file")"
  exit $((problems > 0))
fi

# As a hook, $0 is .git/hooks/commit-msg: the work tree is git's, not this file's parent.
cd "$(git rev-parse --show-toplevel)"
if (($#)); then
  range=("$@")
else
  first=$(git log --diff-filter=A --format=%H -- .ci/check-commits.sh | tail -n 1)
  [[ -n $first ]] || { echo "check-commits: this script is not in the history yet"; exit 0; }
  range=("$first^..HEAD")
fi
count=0
while read -r commit; do
  count=$((count + 1))
  check_message "$(git log -1 --format=%h "$commit")" "$(git log -1 --format=%B "$commit")"
done < <(git rev-list --no-merges "${range[@]}")
((problems == 0)) && echo "check-commits: $count commits, every message in shape"
exit $((problems > 0))
