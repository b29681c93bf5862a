# Sourced by setup.sh and test.sh: installs the Debian packages evalgate needs when they are missing.
# bubblewrap (bwrap) is the sandbox every rubric and command SUT runs in. As root with apt-get it is
# installed; otherwise one line says what to run (evalgate then refuses untrusted code unless --sandbox none).
# shellcheck shell=sh

ensure_system_packages() {
  missing=""
  command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ] || missing="$missing bubblewrap"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "evalgate: installing$missing with apt-get (the sandbox for rubrics and SUTs)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } >&2
  else
    echo "evalgate: the sandbox needs$missing: run \`sudo apt-get install -y$missing\` (until then evalgate refuses to run untrusted code unless --sandbox none)" >&2
  fi
}
