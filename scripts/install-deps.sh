#!/usr/bin/env bash
# Installs the Debian packages thorn builds with, when they are missing.
# Run as root (CI) or with sudo available; does nothing when all are present.
set -euo pipefail
packages=(cmake ninja-build g++ clang libclang-rt-14-dev libfmt-dev libboost-dev doctest-dev libreadline-dev zlib1g-dev libpng-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
