#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perfetto-venv.sh DIR: a Python venv in DIR holding Perfetto's own message
# definitions (the perfetto package from PyPI, pinned, and its protobuf),
# made once; prints the venv's python. Installs Debian's python3-venv if
# python3 cannot make a venv.
set -eu
dir=$1
pins=(perfetto==0.59.1 protobuf==7.36.2)
py=$dir/bin/python
have() {
	"$py" -m pip freeze 2>/dev/null | grep -qx "${pins[0]}" &&
		"$py" -c "import perfetto.protos.perfetto.trace.perfetto_trace_pb2" 2>/dev/null
}
if ! have; then
	rm -rf "$dir"
	if ! python3 -m venv "$dir" >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q python3-venv >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null; }
		rm -rf "$dir"
		python3 -m venv "$dir" >/dev/null
	fi
	"$py" -m pip install -q --disable-pip-version-check "${pins[@]}" >&2
	have
fi
echo "$py"
