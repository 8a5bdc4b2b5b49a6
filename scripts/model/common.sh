# Sourced by scripts/fetch-model.sh and scripts/fetch-e5.sh: what both do the same way — skip
# the work when the outputs are up to date, and the Python venv the converters run in
# (.cache/venv) with exactly the pinned packages each needs.

# Installs the pins into the venv unless they are there already.
#
#   ensure_venv <script name> <venv> <name==version>...
ensure_venv() {
  local who="$1" venv="$2"
  shift 2
  printf '\n== %s\n' "Python venv ($venv: $*)"
  if "$venv/bin/python" - "$@" 2>/dev/null <<'PY'
import sys, importlib.metadata as md
for pin in sys.argv[1:]:
    name, version = pin.split("==")
    if md.version(name) != version:
        sys.exit(1)
PY
  then
    return 0
  fi
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet "$@"; then
    echo "$who: could not install $* into $venv." >&2
    echo "  Check the network / pip's index configuration and run $who again." >&2
    exit 1
  fi
}

# Exits the calling script when its outputs exist and were made from the same inputs (the
# stamp file holds `want`); `force` 1 always rebuilds.
#
#   exit_if_up_to_date <script name> <force> <out dir> <stamp> <want> <file>...
exit_if_up_to_date() {
  local who="$1" force="$2" out="$3" stamp="$4" want="$5"
  shift 5
  [ "$force" = 0 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] || return 0
  local f
  for f in "$@"; do
    [ -s "$out/$f" ] || return 0
  done
  echo "$who: $out is up to date (--force to rebuild)"
  exit 0
}

# Sets `force` from the script's arguments: --force rebuilds, anything else is refused.
#
#   parse_force <script name> "$@"
parse_force() {
  local who="$1" arg
  shift
  force=0
  for arg in "$@"; do
    case "$arg" in
      --force) force=1 ;;
      *) echo "$who: unknown option $arg (use --force to rebuild)" >&2; exit 2 ;;
    esac
  done
}
