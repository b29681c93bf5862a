# Sourced by setup.sh and test.sh: installs the Debian packages evalgate needs when they are missing.
# bubblewrap (bwrap) is the sandbox every rubric and command SUT runs in; chromium is the headless browser
# the HTML report's tests open it in. As root with apt-get they are installed; otherwise one line says what
# to run (evalgate then refuses untrusted code unless --sandbox none; the browser tests skip, saying why).
# shellcheck shell=sh

ensure_system_packages() {
  missing=""
  command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ] || missing="$missing bubblewrap"
  # setpriv drops a sandboxed process to nobody when evalgate runs as root.
  [ -x /usr/bin/setpriv ] || [ -x /bin/setpriv ] || missing="$missing util-linux"
  [ -x /usr/bin/chromium ] || missing="$missing chromium"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "evalgate: installing$missing with apt-get (the sandbox for rubrics and SUTs; the browser for the report's tests)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } >&2
  else
    echo "evalgate: missing$missing: run \`sudo apt-get install -y$missing\` (without bubblewrap evalgate refuses to run untrusted code unless --sandbox none; without chromium the report's browser tests skip)" >&2
  fi
}
