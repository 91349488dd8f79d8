#!/usr/bin/env bash
# setup.sh builds a runnable perf_analyzer 2.52.0 (Triton's C++ load
# generator, the engine under GenAI-Perf) on a machine whose glibc and
# libstdc++ are too old for it (Debian 12: glibc 2.36; the binary asks for
# GLIBC_2.38 and GLIBCXX_3.4.32).
#
# Nothing is installed system-wide. Into $PA_CACHE (default
# ~/.cache/llmbench-perfanalyzer) it puts
#   - perf_analyzer, taken out of PyPI's tritonclient==2.52.0 manylinux wheel;
#   - root/, Debian 13 (trixie) libc6, libstdc++6, libgcc-s1 and the other
#     libraries the binary links (libssl, libcrypto, zlib, libzstd), unpacked
#     from their .deb files (pool URLs and SHA-256 from trixie's Packages
#     index, each .deb checked against it);
#   - pa, a wrapper that starts the binary through root's own
#     ld-linux-x86-64.so.2 with --library-path, so every library comes from
#     root/ and the system's are never mixed in.
# Idempotent: a step whose output exists is skipped; delete $PA_CACHE to
# start over. Prints the wrapper's path on the last line.
set -euo pipefail

CACHE=${PA_CACHE:-$HOME/.cache/llmbench-perfanalyzer}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
WHEEL_VERSION=2.52.0
# The binary's NEEDED libraries, by the trixie package that ships them.
PACKAGES=(libc6 libstdc++6 libgcc-s1 libssl3t64 zlib1g libzstd1)

mkdir -p "$CACHE/wheel" "$CACHE/debs" "$CACHE/root"
cd "$CACHE"

# 1. perf_analyzer from the wheel (--no-deps: only the binary is wanted).
if [[ ! -x perf_analyzer ]]; then
  if ! ls wheel/tritonclient-$WHEEL_VERSION-*manylinux*_x86_64.whl >/dev/null 2>&1; then
    python3 -m pip download "tritonclient==$WHEEL_VERSION" --no-deps --only-binary=:all: \
      --platform manylinux1_x86_64 --python-version 3.11 -d wheel
  fi
  python3 - "$WHEEL_VERSION" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(f"wheel/tritonclient-{sys.argv[1]}-*manylinux*_x86_64.whl")[0]
member = f"tritonclient-{sys.argv[1]}.data/data/bin/perf_analyzer"
with zipfile.ZipFile(wheel) as z, open("perf_analyzer.part", "wb") as out:
    out.write(z.read(member))
PY
  chmod +x perf_analyzer.part && mv perf_analyzer.part perf_analyzer
fi

# 2. The trixie .debs, located and checksummed through the Packages index.
if [[ ! -s debs/manifest ]]; then
  curl -fsSL -o Packages.xz "$MIRROR/dists/trixie/main/binary-amd64/Packages.xz"
  xz -dc Packages.xz | python3 -c '
import sys
want = set(sys.argv[1:])
for stanza in sys.stdin.read().split("\n\n"):
    f = dict(l.split(": ", 1) for l in stanza.splitlines() if ": " in l and not l.startswith(" "))
    if f.get("Package") in want:
        print(f["Package"], f["Version"], f["Filename"], f["SHA256"])
        want.discard(f["Package"])
if want:
    sys.exit("not in trixie Packages index: " + " ".join(sorted(want)))
' "${PACKAGES[@]}" > debs/manifest.part
  mv debs/manifest.part debs/manifest
fi
while read -r pkg version file sha; do
  deb=debs/$(basename "$file")
  if [[ ! -s $deb ]] || ! echo "$sha  $deb" | sha256sum -c --quiet - 2>/dev/null; then
    curl -fsSL -o "$deb.part" "$MIRROR/$file"
    echo "$sha  $deb.part" | sha256sum -c --quiet - || { echo "checksum mismatch: $pkg $version" >&2; exit 1; }
    mv "$deb.part" "$deb"
  fi
  if [[ ! -e root/.unpacked-$pkg-$version ]]; then
    dpkg-deb -x "$deb" root
    touch "root/.unpacked-$pkg-$version"
  fi
done < debs/manifest

LOADER=$CACHE/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
LIBS=$CACHE/root/usr/lib/x86_64-linux-gnu
[[ -e $LOADER ]] || LOADER=$CACHE/root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[[ -e $LOADER ]] || { echo "no ld-linux-x86-64.so.2 in $CACHE/root" >&2; exit 1; }

# 3. The wrapper.
cat > pa.part <<WRAP
#!/bin/sh
# perf_analyzer $WHEEL_VERSION through Debian 13's loader and libraries (see
# bench/perfanalyzer/setup.sh in llmbench).
exec "$LOADER" --library-path "$LIBS" "$CACHE/perf_analyzer" "\$@"
WRAP
chmod +x pa.part && mv pa.part pa

# 4. Every NEEDED library must resolve inside root/, none from the system.
if "$LOADER" --library-path "$LIBS" --list "$CACHE/perf_analyzer" | grep -E '=> (/lib|/usr/lib)|not found'; then
  echo "perf_analyzer resolves a library outside $CACHE/root (listed above)" >&2
  exit 1
fi
"$CACHE/pa" --version >/dev/null || { echo "perf_analyzer does not start through $LOADER" >&2; exit 1; }
echo "$CACHE/pa"
