# Sourced by setup.sh and test.sh: installs the Debian packages evalgate needs when they are missing.
# `ensure_system_packages` (setup.sh): what the product needs: bubblewrap (bwrap), the sandbox every rubric
# and command SUT runs in, util-linux's setpriv, and slirp4netns, the user-mode network of a `--sut-network`
# SUT (its own network namespace, without the host's loopback). `ensure_system_packages tests` (test.sh) adds what the
# tests need: chromium, the headless browser the HTML report's tests open it in; b3sum, the reference the
# digest tests compare against; zsh and fish, the shells the completion tests load their scripts into; socat,
# the relay the model-bridge benchmark compares. As root with apt-get they are installed; otherwise one line
# says what to run (evalgate then refuses untrusted code unless --sandbox none; those tests skip, saying why).
# shellcheck shell=sh

ensure_system_packages() {
  missing=""
  command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ] || missing="$missing bubblewrap"
  # setpriv drops a sandboxed process to nobody when evalgate runs as root.
  [ -x /usr/bin/setpriv ] || [ -x /bin/setpriv ] || missing="$missing util-linux"
  # slirp4netns gives a --sut-network SUT outbound access without the host's loopback.
  [ -x /usr/bin/slirp4netns ] || missing="$missing slirp4netns"
  if [ "${1:-}" = tests ]; then
    [ -x /usr/bin/chromium ] || missing="$missing chromium"
    command -v b3sum >/dev/null 2>&1 || missing="$missing b3sum"
    command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
    command -v fish >/dev/null 2>&1 || missing="$missing fish"
    command -v socat >/dev/null 2>&1 || missing="$missing socat"
  fi
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "evalgate: installing$missing with apt-get (the sandbox for rubrics and SUTs${1:+; what the tests use})" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } >&2
  else
    echo "evalgate: missing$missing: run \`sudo apt-get install -y$missing\` (without bubblewrap evalgate refuses to run untrusted code unless --sandbox none; without the test packages some tests skip)" >&2
  fi
}
