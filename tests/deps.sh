#!/usr/bin/env bash
# Installs the Debian packages the build needs (`deps.sh`), with the
# programs the write tests drive and the install test runs (mount, umount,
# unshare, nsenter, setpriv, man; chromium renders the plots; pngcheck and
# python3's PIL, the texture test's second PNG decoders: `deps.sh test`) or the peers the bench
# measures against (`deps.sh bench`), when any is missing: as root it
# installs them, otherwise it prints the command.
set -euo pipefail

packages=(gcc make pkg-config libfuse3-dev fuse3 libcmocka-dev zlib1g-dev)
case "${1:-}" in
test) packages+=(vim nano tmux rsync emacs-nox attr git python3 mount util-linux man-db chromium pngcheck python3-pil) ;;
bench) packages+=(squashfuse squashfs-tools fuse-zip zip) ;;
esac
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	echo "installing: ${missing[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
	echo "missing packages: ${missing[*]}" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
