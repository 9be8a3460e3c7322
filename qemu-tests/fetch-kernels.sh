#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015  # "A && B || die" is meant: die exits either way
#
# fetch-kernels.sh [6.1|6.12|all] [amd64|arm64]   (default: all amd64)
# fetch-kernels.sh mirror            print the host's bookworm mirror URI
#
# Unpacks Debian's bookworm 6.1 and bookworm-backports 6.12 kernels (image,
# headers, kbuild) under ${RAMTRAIL_CACHE:-~/.cache/ramtrail}, so ramtrail can be
# built and booted in QEMU against both without installing a kernel on the host;
# also installs the host tools the QEMU tests need.  A kernel with a stamp
# (k61.stamp, k612.stamp; k61-arm64.stamp...) is reused as-is; delete the
# stamp to re-resolve.
#
# arm64: the image and headers of Debian's arm64 port with the host's own
# linux-kbuild (Multi-Arch: foreign: its programs run on the host), for a
# cross build with gcc-aarch64-linux-gnu; apt resolves them in a private
# state ($CACHE/apt-arm64) that knows the arm64 architecture, so the host's
# dpkg never does.
#
# Prints one line per kernel and writes a sourceable $CACHE/k61.env / k612.env
# / k61-arm64.env / k612-arm64.env (KVER KDIR VMLINUZ RELEASE KBUILD_ARGS
# [PAHOLE]).  Build a module with:
#   . $CACHE/k612.env && make -C "$KDIR" M=$PWD $KBUILD_ARGS modules
set -euo pipefail

CACHE=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}
WANT=${1:-all}
ARCH=${2:-amd64}
export DEBIAN_FRONTEND=noninteractive
die() { echo "fetch-kernels: error: $*" >&2; exit 1; }
log() { echo "fetch-kernels: $*" >&2; }
case $WANT/$ARCH in 6.1/amd64|6.12/amd64|all/amd64|mirror/amd64|6.1/arm64|6.12/arm64|all/arm64) ;;
*) die "usage: $0 [6.1|6.12|all|mirror] [amd64|arm64]" ;; esac

SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
# As root, apt downloads as the _apt user, which cannot write under $HOME;
# packages are still hash-checked against the signed Release files.
NOSANDBOX=(-o APT::Sandbox::User=root)
APT=()		# extra apt options: empty = the host's own sources and lists

UPDATED=
apt_update() {	# at most once per run, and only when something is missing
	[ -n "$UPDATED" ] && return 0; UPDATED=1
	log "apt-get update"; $SUDO apt-get update -q >&2 || die "apt-get update failed"
}

# Candidate version of package $1 (empty if unknown).
pkg_version() {
	apt-cache "${APT[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }' || true
}

# qemu/busybox/cpio/kmod: the QEMU guest and its initramfs; dkms, mmdebstrap,
# e2fsprogs: the packages' test and the Debian guest.  The rest: kbuild for
# M= builds (Debian's linux-kbuild ships modpost/objtool prebuilt against libelf
# and libssl; the kernel was built with gcc-12), and the libraries of the
# unpacked, not installed, pahole (libdw1, libbpf1).
host_tools() {
	local p missing=()
	local want=(qemu-system-x86 busybox-static cpio kmod xz-utils gcc gcc-12 make bc
		flex bison libelf-dev libdw1 libbpf1 dkms mmdebstrap e2fsprogs)
	# arm64: the cross compiler, the virt machine, dtc for its device tree.
	[ "$ARCH" = amd64 ] || want+=(gcc-aarch64-linux-gnu gcc-12-aarch64-linux-gnu
		qemu-system-arm device-tree-compiler)
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	apt_update
	log "installing host tools: ${missing[*]}"
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# The mirror is whatever the host's own apt sources use for bookworm.
mirror_uri() {
	local u
	u=$(awk 'BEGIN { RS = ""; FS = "\n" }
		{ uri = ""; deb = 0; bw = 0; on = 1
		  for (i = 1; i <= NF; i++) { l = $i " "
			if (l ~ /^[ \t]*#/) continue
			if (l ~ /^Types:/ && l ~ /[ \t]deb[ \t]/) deb = 1
			if (l ~ /^Suites:/ && l ~ /[ \t]bookworm[ \t]/) bw = 1
			if (l ~ /^Enabled:[ \t]*no/) on = 0
			if (l ~ /^URIs:/) { split(l, a, /[ \t]+/); uri = a[2] } }
		  if (deb && bw && on && uri != "") { print uri; exit } }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	[ -n "$u" ] || u=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/\[[^]]*\]//' | awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }')
	[ -n "$u" ] || die "no 'bookworm' entry in the host's apt sources"
	echo "${u%/}"
}

[ "$WANT" != mirror ] || { mirror_uri; exit 0; }

# fetch_kernel NAME KVER [PAHOLE]: resolve, download, unpack, describe a
# kernel of $ARCH (the image and headers; kbuild is always the host's).
fetch_kernel() {
	local name=$1 kver=$2 pahole=${3:-} dest=$CACHE/$1 debs=$CACHE/debs/$1
	local abi img hver common kbuild p v f kdir rel files=() specs=() args=
	local a=; [ "$ARCH" = amd64 ] || a=:$ARCH

	if [ ! -f "$CACHE/$name.stamp" ] || [ ! -f "$CACHE/$name.env" ] || [ ! -d "$dest" ]; then
		# Every version apt knows of: the arm64 state has both suites.
		abi=$(apt-cache "${APT[@]}" show "linux-image-$ARCH$a" 2>/dev/null |
			sed -n 's/^Depends: linux-image-//p' | sed 's/[ ,(].*//; s/:.*//' |
			grep "^$kver\." | sort -V | tail -n1 || true)
		[ -n "$abi" ] || die "$name: no linux-image-$kver.* behind linux-image-$ARCH"
		img=linux-image-$abi-unsigned$a
		[ -n "$(pkg_version "$img")" ] || img=linux-image-$abi$a
		hver=$(pkg_version "linux-headers-$abi$a")
		[ -n "$hver" ] || die "$name: linux-headers-$abi not found"
		# The common-headers and kbuild package names differ between 6.1 and
		# 6.12 (linux-kbuild-6.1 vs linux-kbuild-6.12.95+deb12): ask the headers.
		read -r common kbuild < <(apt-cache "${APT[@]}" show --no-all-versions "linux-headers-$abi$a" |
			sed -n 's/^Depends: //p' | tr ',' '\n' | awk '$1 ~ /^linux-headers-.*-common$/ { c = $1 }
				$1 ~ /^linux-kbuild-/ { k = $1 } END { print c, k }')
		[ -n "$common" ] && [ -n "$kbuild" ] || die "$name: cannot parse linux-headers-$abi Depends"
		common=${common%%:*} kbuild=${kbuild%%:*}
		for p in "$img" "linux-headers-$abi$a" "$common" "$kbuild"; do
			# Pin to the headers' version: bookworm main also has an older
			# linux-kbuild-6.1 than bookworm-security's headers want. The
			# headers want kbuild at their version or later, and kbuild
			# can be uploaded again alone: then the candidate, if not older.
			v=$(pkg_version "$p=$hver")
			if [ -z "$v" ] && [ "$p" = "$kbuild" ]; then
				v=$(pkg_version "$p")
				[ -n "$v" ] && dpkg --compare-versions "$v" ge "$hver" || v=
			fi
			[ -n "$v" ] || die "$name: $p $hver not found"
			f=${p%%:*}_${v//:/%3a}_
			compgen -G "$debs/$f*.deb" >/dev/null || specs+=("$p=$v")
			files+=("$f")
		done
		mkdir -p "$debs"
		[ ${#specs[@]} -eq 0 ] || { log "$name: downloading ${specs[*]}"
			(cd "$debs" && apt-get "${APT[@]}" "${NOSANDBOX[@]}" -q download "${specs[@]}" >&2) ||
				die "$name: apt-get download failed (${specs[*]})"; }
		log "$name: unpacking into $dest"
		rm -rf "$dest.tmp" "$dest" "$CACHE/$name.stamp"
		mkdir -p "$dest.tmp"
		for f in "${files[@]}"; do
			f=$(compgen -G "$debs/$f*.deb")
			dpkg-deb -x "$f" "$dest.tmp" || { rm -f "$f"; die "$name: bad $f (deleted, re-run)"; }
		done
		for f in "$debs"/*.deb; do	# drop superseded ABIs' .debs
			printf '%s\n' "${files[@]}" | grep -qxF "$(basename "$f" | sed 's/_[^_]*$/_/')" || rm -f "$f"
		done
		# The flavour Makefile includes the common tree by absolute path; all
		# else (the scripts/ and tools/ symlinks) is relative to the prefix.
		kdir=$dest/usr/src/linux-headers-$abi
		sed -i "s|^include /usr/src/|include $dest/usr/src/|" "$dest.tmp/usr/src/linux-headers-$abi/Makefile"
		mv "$dest.tmp" "$dest"
		# Not include/config/kernel.release: it says "6.1.192" in 6.1.
		rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
		[ "$rel" = "$abi" ] && [ -f "$dest/boot/vmlinuz-$abi" ] && [ -d "$dest/lib/modules/$abi" ] ||
			die "$name: unpacked tree is inconsistent (release '$rel', ABI $abi)"
		# CC needs no override: .kernelvariables picks gcc-12 (6.1) and
		# x86_64-linux-gnu-gcc-12 / aarch64-linux-gnu-gcc-12 (6.12); a cross
		# build names the architecture and the prefix of the host's binutils.
		[ "$ARCH" = amd64 ] || args="ARCH=$ARCH CROSS_COMPILE=aarch64-linux-gnu- "
		args+=${pahole:+PAHOLE=$pahole}
		printf 'KVER=%s\nKDIR=%s\nVMLINUZ=%s\nRELEASE=%s\nKBUILD_ARGS="%s"\n%s%s' \
			"$kver${a:+-$ARCH}" "$kdir" "$dest/boot/vmlinuz-$abi" "$rel" "${args% }" \
			"${pahole:+PAHOLE=$pahole$'\n'}" "${BUSYBOX:+BUSYBOX=$BUSYBOX$'\n'}" \
			>"$CACHE/$name.env"
		printf '%s\n' "$abi" "${files[@]}" >"$CACHE/$name.stamp"
	fi
	# shellcheck source=/dev/null disable=SC2153  # KVER etc. come from the .env
	(PAHOLE= && . "$CACHE/$name.env" && echo "KVER=$KVER KDIR=$KDIR VMLINUZ=$VMLINUZ RELEASE=$RELEASE${PAHOLE:+ PAHOLE=$PAHOLE}")
}

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"	# serialise concurrent runs on the same cache
flock 9
host_tools

# The unpacked pahole 1.24 of bookworm: the 6.12 headers ship vmlinux, so
# kbuild makes module BTF with pahole, which need not be installed.
PAHOLE=$CACHE/tools/usr/bin/pahole
unpack_pahole() {
	local v
	"$PAHOLE" --version >/dev/null 2>&1 && return 0
	[ -n "$(pkg_version pahole)" ] || apt_update
	v=$(pkg_version pahole)
	mkdir -p "$CACHE/tools" "$CACHE/debs/tools"
	(cd "$CACHE/debs/tools" && apt-get "${NOSANDBOX[@]}" -q download "pahole=$v" >&2) ||
		die "apt-get download pahole failed"
	dpkg-deb -x "$CACHE/debs/tools/pahole_${v//:/%3a}_amd64.deb" "$CACHE/tools"
	"$PAHOLE" --version >/dev/null || die "unpacked pahole does not run"
}

if [ "$ARCH" = arm64 ]; then
	unpack_pahole
	# Private apt state: the host's sources and bookworm-backports, for
	# amd64 (kbuild) and arm64 (image, headers).
	A=$CACHE/apt-arm64
	APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/etc/apt/sources.list.d
		-o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache"
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64)
	if [ ! -f "$CACHE/k61-arm64.stamp" ] || [ ! -f "$CACHE/k612-arm64.stamp" ]; then
		mirror=$(mirror_uri)
		mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
		{ cat /etc/apt/sources.list 2>/dev/null || true
		  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main"
		} >"$A/sources.list"
		log "apt-get update (private lists with arm64)"
		apt-get "${APT[@]}" "${NOSANDBOX[@]}" -q --error-on=any update >&2 ||
			die "apt-get update for arm64 failed"
	fi
	# The guests' static busybox, of the arm64 port.
	BUSYBOX=$CACHE/arm64-tools/bin/busybox
	if [ ! -x "$BUSYBOX" ]; then
		v=$(pkg_version busybox-static:arm64)
		[ -n "$v" ] || die "busybox-static:arm64 not found"
		mkdir -p "$CACHE/debs/arm64-tools"
		(cd "$CACHE/debs/arm64-tools" && apt-get "${APT[@]}" "${NOSANDBOX[@]}" -q download \
			"busybox-static:arm64=$v" >&2) || die "apt-get download busybox-static:arm64 failed"
		rm -rf "$CACHE/arm64-tools"
		dpkg-deb -x "$CACHE/debs/arm64-tools/busybox-static_${v//:/%3a}_arm64.deb" "$CACHE/arm64-tools"
		[ -x "$BUSYBOX" ] || die "no bin/busybox in busybox-static:arm64"
	fi
	[ "$WANT" = 6.12 ] || fetch_kernel k61-arm64 6.1
	[ "$WANT" = 6.1 ] || fetch_kernel k612-arm64 6.12 "$PAHOLE"
	exit 0
fi

if [ "$WANT" != 6.12 ]; then
	# A fresh machine may have no package lists yet.
	[ -f "$CACHE/k61.stamp" ] || [ -n "$(pkg_version linux-image-amd64)" ] || apt_update
	fetch_kernel k61 6.1
fi

if [ "$WANT" != 6.1 ]; then
	unpack_pahole
	# Private apt state: bookworm-backports never reaches the host's sources or lists.
	A=$CACHE/apt
	APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
	if [ ! -f "$CACHE/k612.stamp" ]; then
		mirror=$(mirror_uri)
		mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" \
			>"$A/sources.list"
		log "apt-get update (private bookworm-backports lists)"
		apt-get "${APT[@]}" "${NOSANDBOX[@]}" -q --error-on=any update >&2 ||
			die "apt-get update of bookworm-backports failed"
	fi
	fetch_kernel k612 6.12 "$PAHOLE"
fi
