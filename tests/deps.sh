#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build needs (`deps.sh`), with the
# programs the write tests drive and the install test runs (mount, umount,
# unshare, nsenter, setpriv, man; chromium renders the plots; pngcheck and
# python3's PIL, the texture test's second PNG decoders; clang's libFuzzer,
# which the tests run tests/fuzz/fuzz.sh with: `deps.sh test`), or the peers and
# tools the bench uses (`deps.sh bench`: squashfuse, perf), or the tools
# that check model.glb and draw the README's picture (`deps.sh pictures`:
# Blender and its numpy, Node and npm's gltf-validator, about 170 MB to
# fetch), or clang with libFuzzer alone (`deps.sh fuzz`), when any is
# missing: as root it installs them, otherwise it prints the command.
set -euo pipefail

packages=(gcc make pkg-config libfuse3-dev fuse3 libcmocka-dev zlib1g-dev)
case "${1:-}" in
test) packages+=(vim nano tmux rsync emacs-nox attr git python3 mount util-linux man-db chromium pngcheck python3-pil
	clang libclang-rt-14-dev) ;;
fuzz) packages+=(clang libclang-rt-14-dev) ;;
bench) packages+=(squashfuse squashfs-tools python3 linux-perf) ;;
pictures)
	packages+=(blender python3-numpy)
	# Debian's npm, unless an npm is there already (NodeSource's nodejs
	# brings its own and conflicts with Debian's).
	command -v npm >/dev/null || packages+=(nodejs npm)
	;;
esac
# npm packages, installed globally (found through NODE_PATH=$(npm root -g)).
npm_packages=()
[ "${1:-}" = pictures ] && npm_packages=(gltf-validator)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
npm_has() { command -v npm >/dev/null && NODE_PATH=$(npm root -g) node -e "require('$1')" 2>/dev/null; }
npm_missing=()
for p in "${npm_packages[@]}"; do
	npm_has "$p" || npm_missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ ${#npm_missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	if [ ${#missing[@]} -gt 0 ]; then
		echo "installing: ${missing[*]}"
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
	fi
	if [ ${#npm_missing[@]} -gt 0 ]; then
		echo "installing from npm: ${npm_missing[*]}"
		npm install -g "${npm_missing[@]}"
	fi
else
	echo "missing packages: ${missing[*]} ${npm_missing[*]}" >&2
	[ ${#missing[@]} -eq 0 ] ||
		echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	[ ${#npm_missing[@]} -eq 0 ] || echo "run: sudo npm install -g ${npm_missing[*]}" >&2
	exit 1
fi
