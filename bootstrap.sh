#!/usr/bin/env bash
# One-command setup for Synergy on Debian 12.
#   ./bootstrap.sh showcase   install packages, build, run the showcase
#   ./bootstrap.sh test       install packages, build, run every test
#   ./bootstrap.sh build      install packages and build only
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode="${1:-showcase}"
build="${SYNERGY_BUILD_DIR:-$here/build}"

install_packages() {
  local pkgs missing=()
  pkgs=$(grep -v '^\s*#' "$here/cmake/debian-packages.txt" | grep -v '^\s*$')
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return; fi
  echo "bootstrap: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() {
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$build" -j "$(nproc)"
}

case "$mode" in
  build)
    install_packages; configure_and_build ;;
  showcase)
    install_packages; configure_and_build
    "$here/examples/showcase.sh" "$build" ;;
  test)
    install_packages; configure_and_build
    cd "$build" && ctest --output-on-failure -j "$(nproc)" ;;
  *)
    echo "usage: $0 [showcase|test|build]" >&2; exit 2 ;;
esac
