# Sourced by setup.sh and test.sh: installs the Debian packages evalgate needs when they are missing.
# bubblewrap (bwrap) is the sandbox every rubric and command SUT runs in; chromium is the headless browser
# the HTML report's tests open it in; b3sum is the reference the digest tests compare against. As root with
# apt-get they are installed; otherwise one line says what to run (evalgate then refuses untrusted code
# unless --sandbox none; the browser and b3sum tests skip, saying why).
# shellcheck shell=sh

ensure_system_packages() {
  missing=""
  command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ] || missing="$missing bubblewrap"
  # setpriv drops a sandboxed process to nobody when evalgate runs as root.
  [ -x /usr/bin/setpriv ] || [ -x /bin/setpriv ] || missing="$missing util-linux"
  [ -x /usr/bin/chromium ] || missing="$missing chromium"
  # b3sum, BLAKE3's reference tool: the tests check evalgate's digests against it.
  command -v b3sum >/dev/null 2>&1 || missing="$missing b3sum"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "evalgate: installing$missing with apt-get (the sandbox for rubrics and SUTs; the browser and b3sum for the tests)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } >&2
  else
    echo "evalgate: missing$missing: run \`sudo apt-get install -y$missing\` (without bubblewrap evalgate refuses to run untrusted code unless --sandbox none; without chromium or b3sum some tests skip)" >&2
  fi
}
