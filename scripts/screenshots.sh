#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# screenshots.sh TRACE.dat OUT.png
#
# What a person sees in KernelShark on a trace ramtrail exported: the
# trace opened in a real KernelShark window under Xvfb, as an unprivileged
# user (as root it asks first), and the window's picture saved. Installs
# kernelshark, xvfb and imagemagick when missing. Fails, and says why,
# when the picture is blank or the window never came. make screenshots
# runs it on the demo's trace for the README.
set -euo pipefail
dat=$1 png=$2
need=()
command -v kernelshark >/dev/null || need+=(kernelshark)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v import >/dev/null || need+=(imagemagick)
if [ ${#need[@]} -gt 0 ]; then
	echo "screenshots: installing ${need[*]}"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" >/dev/null
fi
[ -r "$dat" ] || { echo "screenshots: no trace at $dat" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill $ks $xv 2>/dev/null; rm -rf "$tmp"' EXIT
ks='' xv=''
cp "$dat" "$tmp/trace.dat"
mkdir "$tmp/home"
chmod 755 "$tmp"
chmod 644 "$tmp/trace.dat"
chown nobody "$tmp/home"
# A display of its own: no other X server's number, no authorization.
disp=:$((90 + RANDOM % 100))
Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xv=$!
sleep 2
runuser -u nobody -- env HOME="$tmp/home" DISPLAY="$disp" \
	kernelshark -geometry 1280x800+0+0 "$tmp/trace.dat" \
	>"$tmp/kernelshark.log" 2>&1 &
ks=$!
sleep 15
if ! kill -0 "$ks" 2>/dev/null; then
	echo "screenshots: kernelshark exited:" >&2
	grep -v 'loading plugin' "$tmp/kernelshark.log" >&2
	exit 1
fi
DISPLAY=$disp import -window root "$tmp/shot.png"
colors=$(identify -format '%k' "$tmp/shot.png")
if [ "$colors" -lt 32 ]; then
	echo "screenshots: the picture has $colors colours: no trace drawn" >&2
	exit 1
fi
mkdir -p "$(dirname "$png")"
cp "$tmp/shot.png" "$png"
echo "screenshots: $png ($colors colours) from $dat"
